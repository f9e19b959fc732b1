import { route } from './route-definition';
import {
  downloadUrlQuerySchema,
  downloadUrlResponseSchema,
  storageReferenceBodySchema,
  storedObjectResponseSchema,
  uploadUrlBodySchema,
  uploadUrlResponseSchema,
} from './storage-schemas';

/**
 * The routes of storage: upload and download URLs (group `storage`): a section of the route table
 * (`route-table.ts` joins the sections into `ROUTES`), imported alone by the group's function, so its bundle
 * holds only its own routes.
 */
export const STORAGE_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/storage/upload-url',
    group: 'storage',
    operationId: 'createUploadUrl',
    summary: 'Step 1: reserve a signed upload URL',
    tag: 'Storage',
    scope: 'storage:write',
    idempotency: 'keyed',
    get body() {
      return uploadUrlBodySchema();
    },
    get response() {
      return uploadUrlResponseSchema();
    },
    errors: ['payload_too_large'],
    examples: { request: { fileName: 'greeting.wav', contentType: 'audio/wav', size: 96044 } },
  }),
  route({
    method: 'POST',
    path: '/v1/storage/upload-complete',
    group: 'storage',
    operationId: 'completeUpload',
    summary: 'Step 2: finalize an upload',
    tag: 'Storage',
    scope: 'storage:write',
    idempotency: 'keyed',
    get body() {
      return storageReferenceBodySchema();
    },
    get response() {
      return storedObjectResponseSchema();
    },
    errors: ['not_found', 'invalid_storage_reference', 'upload_mismatch', 'storage_limit_reached'],
    examples: { request: { fullPath: 'companies/co_01jd3xq0a6/uploads/01jd3xq0b2/greeting.wav' } },
  }),
  route({
    method: 'GET',
    path: '/v1/storage/url',
    group: 'storage',
    operationId: 'createDownloadUrl',
    summary: 'Signed download URL, valid for up to 7 days',
    tag: 'Storage',
    scope: 'storage:read',
    get query() {
      return downloadUrlQuerySchema();
    },
    get response() {
      return downloadUrlResponseSchema();
    },
    errors: ['not_found', 'invalid_storage_reference'],
  }),
] as const;
