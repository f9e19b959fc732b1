import { createDownloadUrl, createUpload, finishUpload } from '../../shared/domain/storage';
import { createApiHandler } from '../../shared/http/middleware';

export const handler = createApiHandler('storage', {
  createUploadUrl: async ({ auth, body }) => ({
    body: await createUpload(auth.companyId, body, auth, new Date()),
  }),
  completeUpload: async ({ auth, body }) => ({
    body: await finishUpload(auth.companyId, body, auth, new Date()),
  }),
  createDownloadUrl: async ({ auth, query }) => ({
    body: await createDownloadUrl(auth.companyId, query, new Date()),
  }),
});
