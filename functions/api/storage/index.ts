import { createDownloadUrl, createUpload, finishUpload } from '../../shared/domain/storage';
import { createApiHandler } from '../../shared/http/middleware';
import { STORAGE_ROUTES } from '../../shared/routes/storage-routes';

export const handler = createApiHandler('storage', STORAGE_ROUTES, {
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
