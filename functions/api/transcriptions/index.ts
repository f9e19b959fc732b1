import {
  enqueueTranscription,
  getTranscription,
  listTranscriptions,
  toPublicTranscription,
} from '../../shared/domain/transcriptions';
import { createApiHandler } from '../../shared/http/middleware';
import { TRANSCRIPTION_ROUTES } from '../../shared/routes/transcription-routes';

export const handler = createApiHandler('transcriptions', TRANSCRIPTION_ROUTES, {
  createTranscription: async ({ auth, body }) => ({
    body: { job: toPublicTranscription(await enqueueTranscription(auth.companyId, body, new Date())) },
  }),
  listTranscriptions: async ({ auth, query }) => ({ body: await listTranscriptions(auth.companyId, query) }),
  getTranscription: async ({ auth, params }) => ({
    body: { job: toPublicTranscription(await getTranscription(auth.companyId, params.id)) },
  }),
});
