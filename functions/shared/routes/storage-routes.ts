import { route } from './route-definition';
import {
  deleteFileResponseSchema,
  downloadUrlQuerySchema,
  downloadUrlResponseSchema,
  listFilesQuerySchema,
  listFilesResponseSchema,
  storageReferenceBodySchema,
  storageReferenceQuerySchema,
  storedObjectResponseSchema,
  uploadUrlBodySchema,
  uploadUrlResponseSchema,
} from './storage-schemas';

/**
 * The routes of storage: upload and download URLs, the file list and deletion (group `storage`): a section of the route table
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
    examples: {
      request: {
        fileName: 'greeting.wav',
        contentType: 'audio/wav',
        size: 96044,
        checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
      },
    },
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
  route({
    method: 'GET',
    path: '/v1/storage/files',
    group: 'storage',
    operationId: 'listFiles',
    summary: 'List stored files by path prefix',
    tag: 'Storage',
    scope: 'storage:read',
    get query() {
      return listFilesQuerySchema();
    },
    get response() {
      return listFilesResponseSchema();
    },
    errors: ['not_found', 'invalid_storage_reference'],
    examples: {
      response: {
        files: [
          {
            bucket: 'api-v1-files',
            fullPath: 'companies/co_01jd3xq0a6m5r6y1z8k7w2v4bn/uploads/01jd3xq0b2/greeting.wav',
            size: 96044,
            contentType: 'audio/wav',
            checksumSha256: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
            createdAt: '2026-11-02T09:31:12.000Z',
          },
        ],
        nextCursor: null,
      },
    },
    agent: {
      tool: 'list_files',
      title: 'List stored files',
      description:
        "The stored files whose `fullPath` starts with `prefix` (default: all of the company's), in path " +
        'order, a page at a time, as GET /v1/storage/files.',
      effect: 'read',
    },
    workflow: { action: 'actions/storage/list', maxDurationMs: 5_000 },
  }),
  route({
    method: 'DELETE',
    path: '/v1/storage/files',
    group: 'storage',
    operationId: 'deleteFile',
    summary: 'Delete a stored file',
    tag: 'Storage',
    scope: 'storage:write',
    get query() {
      return storageReferenceQuerySchema();
    },
    get response() {
      return deleteFileResponseSchema();
    },
    errors: ['not_found', 'invalid_storage_reference', 'file_in_use'],
    examples: {
      response: {
        deleted: true,
        bucket: 'api-v1-files',
        fullPath: 'companies/co_01jd3xq0a6m5r6y1z8k7w2v4bn/uploads/01jd3xq0b2/greeting.wav',
      },
    },
    agent: {
      tool: 'delete_file',
      title: 'Delete a stored file',
      description:
        'Deletes a stored file (`fullPath`) and stops counting its bytes, as DELETE /v1/storage/files. A ' +
        'file an unfinished transcode or transcription reads is refused (`file_in_use`).',
      effect: 'delete',
    },
  }),
] as const;
