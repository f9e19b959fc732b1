import { jobRouteHandlers } from '../../shared/domain/jobs/commands';
import { speechVoices, synthesizeSpeech } from '../../shared/domain/speech';
import { enqueueSpeechJob } from '../../shared/domain/speech-job-requests';
import { SPEECH_JOB_TYPE, toPublicSpeechJob } from '../../shared/domain/speech-jobs';
import { spokenText } from '../../shared/domain/spoken-text';
import { createApiHandler } from '../../shared/http/middleware';
import { SPEECH_JOB_ROUTES } from '../../shared/routes/speech-job-routes';
import { SPEECH_ROUTES } from '../../shared/routes/speech-routes';

const jobs = jobRouteHandlers(SPEECH_JOB_TYPE);

export const handler = createApiHandler('speech', [...SPEECH_ROUTES, ...SPEECH_JOB_ROUTES], {
  synthesizeSpeech: async ({ auth, body }) => ({
    body: await synthesizeSpeech(auth.companyId, body, auth.storageBytesLimit, new Date()),
  }),
  listSpeechVoices: async () => ({ body: speechVoices() }),
  rewriteSpokenText: async ({ body }) => ({ body: await spokenText(body.markdown) }),
  createSpeechJob: async ({ auth, body }) => ({
    body: { job: toPublicSpeechJob(await enqueueSpeechJob(auth.companyId, body, new Date())) },
  }),
  listSpeechJobs: jobs.list,
  getSpeechJob: jobs.get,
  cancelSpeechJob: jobs.cancel,
});
