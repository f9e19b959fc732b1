import {
  cancelTranscode,
  enqueueTranscode,
  getTranscode,
  listTranscodes,
  retryTranscode,
  toPublicJob,
} from '../../shared/domain/transcodes';
import { createApiHandler } from '../../shared/http/middleware';
import { TRANSCODE_ROUTES } from '../../shared/routes/transcode-routes';

export const handler = createApiHandler('transcodes', TRANSCODE_ROUTES, {
  createTranscode: async ({ auth, body }) => ({
    body: { job: toPublicJob(await enqueueTranscode(auth.companyId, body, new Date())) },
  }),
  listTranscodes: async ({ auth, query }) => ({ body: await listTranscodes(auth.companyId, query) }),
  getTranscode: async ({ auth, params }) => ({
    body: { job: toPublicJob(await getTranscode(auth.companyId, params.id)) },
  }),
  cancelTranscode: async ({ auth, params }) => ({
    body: { job: toPublicJob(await cancelTranscode(auth.companyId, params.id, new Date())) },
  }),
  retryTranscode: async ({ auth, params }) => ({
    body: { job: toPublicJob(await retryTranscode(auth.companyId, params.id, new Date())) },
  }),
});
