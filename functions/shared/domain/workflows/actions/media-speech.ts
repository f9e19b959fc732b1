import { enqueueSpeechJob } from '../../speech-job-requests';
import { toPublicSpeechJob } from '../../speech-jobs';
import { createSpeechJobBodySchema } from '../../speech-request';
import { defineAction } from './registry';

/**
 * `actions/media/speech`: the very same job as `POST /v1/speech/jobs` (the same input schema, so the same
 * refusals as a step failure, pointing into the step's input; the same quota, queue and reuse). The step answers the job as enqueued; its
 * files are the job's once it is done (read it with GET /v1/speech/jobs/{id}).
 */
export const mediaSpeech = defineAction({
  name: 'actions/media/speech',
  scope: 'speech:write',
  maxDurationMs: 10_000,
  get input() {
    return createSpeechJobBodySchema();
  },
  run: async (input, ctx) => ({
    job: toPublicSpeechJob(await enqueueSpeechJob(ctx.companyId, input, ctx.now, '')),
  }),
});
