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
    agent: {
      tool: 'create_upload_url',
      title: 'Reserve an upload URL',
      description:
        'Step 1 of an upload, as POST /v1/storage/upload-url: a signed URL to PUT the file to and its ' +
        '`fullPath`; after the PUT, call complete_upload with that `fullPath`.',
      effect: 'create',
    },
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
    agent: {
      tool: 'complete_upload',
      title: 'Finish an upload',
      description:
        'Step 2 of an upload, as POST /v1/storage/upload-complete: checks the PUT file and records it; the ' +
        '`fullPath` can then be given to jobs and messages.',
      effect: 'update',
    },
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
    agent: {
      tool: 'get_download_url',
      title: 'Get a download URL',
      description: 'A signed URL to download a stored file (`fullPath`), as GET /v1/storage/url.',
      effect: 'read',
    },
    workflow: { action: 'actions/storage/download-url', maxDurationMs: 5_000 },
  }),
] as const;
