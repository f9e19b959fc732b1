import { synthesizeSpeech } from '../../speech';
import { speechRequestSchema } from '../../speech-request';
import { defineAction } from './registry';

/**
 * `actions/speech/synthesize`: `POST /v1/speech`, with the same input schema (so the same refusals, as a step
 * failure); the stored audio joins the run's `files`.
 */
export const speechSynthesize = defineAction({
  name: 'actions/speech/synthesize',
  scope: 'speech:write',
  maxDurationMs: 12_000,
  get input() {
    return speechRequestSchema();
  },
  run: async (input, ctx) =>
    synthesizeSpeech(ctx.companyId, input, (await ctx.limits()).storageBytes, ctx.now),
  files: (output) => [{ bucket: output.bucket, fullPath: output.fullPath }],
});
