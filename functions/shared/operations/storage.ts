import {
  createUpload,
  deleteFile as deleteStoredFile,
  createDownloadUrl as downloadUrl,
  finishUpload,
  listFiles as listStoredFiles,
} from '../domain/storage';
import {
  abortMultipartUpload as abortMultipart,
  completeMultipartUpload as completeMultipart,
  createMultipartUpload as createMultipart,
  getMultipartUpload as getMultipart,
  signPartUrls,
} from '../domain/storage-multipart';
import type { RouteHandler } from '../http/router';

/** What each operation of storage does: the group's routes, its MCP tools and its workflow actions. */
export const createUploadUrl: RouteHandler<'createUploadUrl'> = async ({ auth, body, now }) => ({
  body: await createUpload(auth.companyId, body, auth, now),
});
export const completeUpload: RouteHandler<'completeUpload'> = async ({ auth, body, now }) => ({
  body: await finishUpload(auth.companyId, body, auth, now),
});
export const createDownloadUrl: RouteHandler<'createDownloadUrl'> = async ({ auth, query, now }) => ({
  body: await downloadUrl(auth.companyId, query, now),
});
export const listFiles: RouteHandler<'listFiles'> = async ({ auth, query }) => ({
  body: await listStoredFiles(auth.companyId, query),
});
export const deleteFile: RouteHandler<'deleteFile'> = async ({ auth, query }) => ({
  body: await deleteStoredFile(auth.companyId, query),
});
export const createMultipartUpload: RouteHandler<'createMultipartUpload'> = async ({ auth, body, now }) => ({
  body: { upload: await createMultipart(auth.companyId, body, auth, now) },
});
export const getMultipartUpload: RouteHandler<'getMultipartUpload'> = async ({ auth, params, now }) => ({
  body: { upload: await getMultipart(auth.companyId, params.id, now) },
});
export const completeMultipartUpload: RouteHandler<'completeMultipartUpload'> = async ({
  auth,
  params,
  body,
  now,
}) => ({
  body: await completeMultipart(auth.companyId, params.id, body, auth, now),
});
export const createMultipartPartUrls: RouteHandler<'createMultipartPartUrls'> = async ({
  auth,
  params,
  body,
  now,
}) => ({
  body: await signPartUrls(auth.companyId, params.id, body, now),
});
export const abortMultipartUpload: RouteHandler<'abortMultipartUpload'> = async ({ auth, params }) => ({
  body: await abortMultipart(auth.companyId, params.id),
});
