import { SPEECH_FORMATS } from '../../../types/speech-voices';
import * as z from '../../../zod';
import { synthesizeSpeech } from '../../speech';
import { defineAction } from './registry';

/** `actions/speech/synthesize`: `POST /v1/speech`; the stored audio joins the run's `files`. */
export const speechSynthesize = defineAction({
  name: 'actions/speech/synthesize',
  scope: 'speech:write',
  maxDurationMs: 12_000,
  input: z
    .object({
      text: z.string().min(1).max(4096),
      voiceProfileId: z.string().min(1).max(64).optional(),
      format: z.enum(SPEECH_FORMATS).optional(),
    })
    .strict(),
  run: async (input, ctx) =>
    synthesizeSpeech(ctx.companyId, input, (await ctx.limits()).storageBytes, ctx.now),
  files: (output) => [{ bucket: output.bucket, fullPath: output.fullPath }],
});
