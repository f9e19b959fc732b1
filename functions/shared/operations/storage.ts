import {
  createUpload,
  deleteFile as deleteStoredFile,
  createDownloadUrl as downloadUrl,
  finishUpload,
  listFiles as listStoredFiles,
} from '../domain/storage';
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
