import { route } from './route-definition';
import {
  abortMultipartResponseSchema,
  completeMultipartBodySchema,
  deleteFileResponseSchema,
  downloadUrlQuerySchema,
  downloadUrlResponseSchema,
  listFilesQuerySchema,
  listFilesResponseSchema,
  multipartPartUrlsBodySchema,
  multipartPartUrlsResponseSchema,
  multipartUploadBodySchema,
  multipartUploadParamsSchema,
  multipartUploadResponseSchema,
  storageReferenceBodySchema,
  storageReferenceQuerySchema,
  storedObjectResponseSchema,
  uploadUrlBodySchema,
  uploadUrlResponseSchema,
} from './storage-schemas';

/** The group and tag of every route of the section. */
const AREA = { group: 'storage', tag: 'Storage' } as const;

/**
 * The routes of storage: upload and download URLs, multipart uploads, the file list and deletion (group
 * `storage`): a section of the route table (`route-table.ts` joins the sections into `ROUTES`), imported
 * alone by the group's function, so its bundle holds only its own routes.
 *
 * The multipart routes have no MCP tool or workflow action: they are for files of many megabytes, which an
 * agent or a workflow step does not send; both use the single upload.
 */
const MULTIPART_ID = '01jd3xq0b2k7m4r9s1t6v8w0yz_lecture.mp4';
const MULTIPART_PATH = `companies/co_01jd3xq0a6m5r6y1z8k7w2v4bn/uploads/${MULTIPART_ID.replace('_', '/')}`;
const PART_CHECKSUMS = [
  'vyy1imj2hNlaO3jvj2Ycmk5bCegsyPnMiMzpBSjK6yc=',
  '6kFaYb0ZkVCENmoKL9rr4HCpwxaId+zbXjb0kFtfiqM=',
  'Ln0sA6lQeuJl7PW1NWiFpTOTogKdJBOUmXJloaJa78Y=',
];
/** The composite of `PART_CHECKSUMS` (`types/checksums.ts`). */
const COMPOSITE_EXAMPLE = 'BxkdPQ7wfZOPHWJ+/oa8UfGeQieYmRXFF1W3vMuz5aM=-3';
const partExample = (partNumber: number, size: number, checksumSha256?: string) => ({
  partNumber,
  size,
  url:
    `https://api-v1-files.s3.eu-west-1.amazonaws.com/${MULTIPART_PATH}?partNumber=${partNumber}` +
    '&uploadId=VXBsb2FkIElEIGZvciBlbHZpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA&X-Amz-Algorithm=AWS4-HMAC-SHA256' +
    `&X-Amz-Expires=3600&X-Amz-SignedHeaders=content-length%3Bhost${checksumSha256 ? '%3Bx-amz-checksum-sha256' : ''}` +
    '&X-Amz-Signature=3f1c9a6be0d4',
  method: 'PUT',
  headers: {
    'Content-Length': String(size),
    ...(checksumSha256 === undefined ? {} : { 'x-amz-checksum-sha256': checksumSha256 }),
  },
  expiresAt: '2026-11-02T10:31:12.000Z',
});
const multipartExample = (received: number) => ({
  id: MULTIPART_ID,
  uploadId: 'VXBsb2FkIElEIGZvciBlbHZpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA',
  bucket: 'api-v1-files',
  fullPath: MULTIPART_PATH,
  size: 20_000_000,
  contentType: 'video/mp4',
  partSize: 8_388_608,
  partCount: 3,
  expiresAt: '2026-11-03T09:31:12.000Z',
  receivedParts: [
    { partNumber: 1, etag: 'b54357faf0632cce46e942fa68356b38', size: 8_388_608 },
    { partNumber: 2, etag: '0d3a1ba8a8b5b6c2e5d2e0e5c2f1a9b7', size: 8_388_608 },
  ].slice(0, received),
  parts: [partExample(1, 8_388_608), partExample(2, 8_388_608), partExample(3, 3_222_784)].slice(received),
});
export const STORAGE_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/storage/upload-url',
    ...AREA,
    operationId: 'createUploadUrl',
    sdk: 'storage.createUploadUrl',
    summary: 'Step 1: reserve a signed upload URL',
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
    ...AREA,
    operationId: 'completeUpload',
    sdk: 'storage.completeUpload',
    summary: 'Step 2: finalize an upload',
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
    method: 'POST',
    path: '/v1/storage/multipart-uploads',
    ...AREA,
    operationId: 'createMultipartUpload',
    sdk: 'storage.multipartUploads.create',
    summary: 'Start a multipart upload',
    description:
      'For large files: reserves the object path and answers one signed URL per part (`partSize` bytes each, ' +
      'the last one the rest). PUT each part with its exact `Content-Length`; each answer carries an `ETag` ' +
      'header the client keeps for the completion. Parts may be sent in any order and in parallel. The ' +
      "declared size is capped by the plan's `maxObjectBytes` (413 `payload_too_large`). With " +
      '`checksumAlgorithm: SHA256` each part URL is asked for with its checksum (`…/part-urls`).',
    scope: 'storage:write',
    idempotency: 'keyed',
    get body() {
      return multipartUploadBodySchema();
    },
    get response() {
      return multipartUploadResponseSchema();
    },
    successStatus: 201,
    errors: ['payload_too_large'],
    examples: {
      request: { fileName: 'lecture.mp4', contentType: 'video/mp4', size: 20_000_000, partSize: 8_388_608 },
      response: { upload: multipartExample(0) },
    },
  }),
  route({
    method: 'POST',
    path: '/v1/storage/multipart-uploads/{id}/part-urls',
    ...AREA,
    operationId: 'createMultipartPartUrls',
    sdk: 'storage.multipartUploads.createPartUrls',
    summary: 'Sign part URLs, with their checksums',
    description:
      'Signed URLs for the parts named, each bound to its exact length and to the `checksumSha256` given for ' +
      'it: the way to send the parts of an upload started with `checksumAlgorithm` (every part needs its ' +
      'checksum; storage refuses bytes that do not match with 400 `BadDigest`), and fresh URLs of any parts ' +
      'of another upload (no checksums then). A part number past `partCount`, or a checksum missing or ' +
      'refused, is 400 `validation_failed`.',
    scope: 'storage:write',
    idempotency: 'repeatable',
    get params() {
      return multipartUploadParamsSchema();
    },
    get body() {
      return multipartPartUrlsBodySchema();
    },
    get response() {
      return multipartPartUrlsResponseSchema();
    },
    errors: ['not_found'],
    examples: {
      request: {
        parts: PART_CHECKSUMS.map((checksumSha256, i) => ({ partNumber: i + 1, checksumSha256 })),
      },
      response: {
        parts: [
          partExample(1, 8_388_608, PART_CHECKSUMS[0]),
          partExample(2, 8_388_608, PART_CHECKSUMS[1]),
          partExample(3, 3_222_784, PART_CHECKSUMS[2]),
        ],
      },
    },
  }),
  route({
    method: 'GET',
    path: '/v1/storage/multipart-uploads/{id}',
    ...AREA,
    operationId: 'getMultipartUpload',
    sdk: 'storage.multipartUploads.get',
    summary: 'Resume a multipart upload',
    description:
      'The parts storage holds (`receivedParts`, with their ETags) and fresh signed URLs for the missing ' +
      "ones, to resume an interrupted upload. A completed, aborted or expired upload, or another company's " +
      'id, answers 404.',
    scope: 'storage:write',
    get params() {
      return multipartUploadParamsSchema();
    },
    get response() {
      return multipartUploadResponseSchema();
    },
    errors: ['not_found'],
    examples: { response: { upload: multipartExample(2) } },
  }),
  route({
    method: 'POST',
    path: '/v1/storage/multipart-uploads/{id}/complete',
    ...AREA,
    operationId: 'completeMultipartUpload',
    sdk: 'storage.multipartUploads.complete',
    summary: 'Finish a multipart upload',
    description:
      'Assembles the parts (every part number from 1 to `partCount`, in order, with the ETag each PUT ' +
      'answered and, for an upload with `checksumAlgorithm`, the checksum of each; otherwise 400 ' +
      '`multipart_parts_invalid`) and records the object as `POST /v1/storage/upload-complete` does, with ' +
      'the same answer; with checksums it answers the composite checksum (`checksumType` `COMPOSITE`). A ' +
      'composite `checksumSha256` given here that the parts do not make is 400 ' +
      '`multipart_checksum_mismatch`, before anything is assembled. Completing again answers the same object.',
    scope: 'storage:write',
    idempotency: 'keyed',
    get params() {
      return multipartUploadParamsSchema();
    },
    get body() {
      return completeMultipartBodySchema();
    },
    get response() {
      return storedObjectResponseSchema();
    },
    errors: [
      'not_found',
      'multipart_parts_invalid',
      'multipart_checksum_mismatch',
      'upload_mismatch',
      'storage_limit_reached',
    ],
    examples: {
      request: {
        parts: [
          { partNumber: 1, etag: 'b54357faf0632cce46e942fa68356b38', checksumSha256: PART_CHECKSUMS[0] },
          { partNumber: 2, etag: '0d3a1ba8a8b5b6c2e5d2e0e5c2f1a9b7', checksumSha256: PART_CHECKSUMS[1] },
          { partNumber: 3, etag: '7c4a8d09ca3762af61e59520943dc264', checksumSha256: PART_CHECKSUMS[2] },
        ],
        checksumSha256: COMPOSITE_EXAMPLE,
      },
      response: {
        bucket: 'api-v1-files',
        fullPath: MULTIPART_PATH,
        size: 20_000_000,
        contentType: 'video/mp4',
        checksumSha256: COMPOSITE_EXAMPLE,
        checksumType: 'COMPOSITE',
      },
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/storage/multipart-uploads/{id}',
    ...AREA,
    operationId: 'abortMultipartUpload',
    sdk: 'storage.multipartUploads.abort',
    summary: 'Abort a multipart upload',
    description:
      'Storage drops the parts received and the path is no longer reserved. A completed upload cannot be ' +
      'aborted (404; delete the file instead).',
    scope: 'storage:write',
    get params() {
      return multipartUploadParamsSchema();
    },
    get response() {
      return abortMultipartResponseSchema();
    },
    errors: ['not_found'],
    examples: { response: { deleted: true, id: MULTIPART_ID, fullPath: MULTIPART_PATH } },
  }),
  route({
    method: 'GET',
    path: '/v1/storage/url',
    ...AREA,
    operationId: 'createDownloadUrl',
    sdk: 'storage.createDownloadUrl',
    summary: 'Signed download URL, valid for up to 7 days',
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
    ...AREA,
    operationId: 'listFiles',
    sdk: 'storage.files.list',
    summary: 'List stored files by path prefix',
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
            checksumType: 'FULL_OBJECT',
            createdAt: '2026-11-02T09:31:12.000Z',
          },
          {
            bucket: 'api-v1-files',
            fullPath: MULTIPART_PATH,
            size: 20_000_000,
            contentType: 'video/mp4',
            checksumSha256: COMPOSITE_EXAMPLE,
            checksumType: 'COMPOSITE',
            createdAt: '2026-11-02T09:58:40.000Z',
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
    ...AREA,
    operationId: 'deleteFile',
    sdk: 'storage.files.delete',
    summary: 'Delete a stored file',
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
