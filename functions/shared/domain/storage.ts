import { deleteObject, headObject, presignDownload, presignUpload } from '../aws/s3';
import { unfinishedJobsReading } from '../data/jobs/source-readers';
import {
  completeUpload,
  deleteStoredObject,
  listStoredObjects,
  reserveUpload,
  type StoredObject,
} from '../data/stored-objects';
import { env } from '../env';
import { AppError, NotFoundError } from '../errors';
import { ulid } from '../ids';
import { checksumTypeOf } from '../types/checksums';
import { companyObjectPrefix } from '../types/object-prefixes';
import { listCursor, type PageRequest } from './pages';
import { DEFAULT_DOWNLOAD_URL_SECONDS, DEFAULT_FILE_PAGE, UPLOAD_URL_SECONDS } from './storage-limits';
import {
  companyStoragePrefix,
  parseStorageReference,
  resolveStoredObject,
  storagePathProblem,
} from './storage-references';

/**
 * Storage: a two-step upload (reserve a presigned PUT, then complete) and presigned download URLs.
 *
 * - Step 1 reserves `companies/<companyId>/uploads/<ulid>/<sanitised file name>` (one conditional write of a
 *   pending record holding the declared size and type) and answers a PUT URL signed for that content type
 *   and length, valid 15 minutes.
 * - Step 2 reads the object's size and type from S3 and, in one transaction, turns the reservation into a
 *   stored object and adds its bytes to the company's storage figure. Completing again answers the same
 *   record and counts nothing. An object that differs from the reservation is deleted (400
 *   `upload_mismatch`; the reservation stays, so the same URL may be used again while it lives); so is one
 *   that would take the company past its storage allowance (403 `storage_limit_reached`).
 * - Download URLs live 1 s to 7 days (default 1 hour) and exist only for recorded objects.
 * - With `checksumSha256` (base64 SHA-256 of the content) the PUT URL is signed for it, so storage refuses
 *   any other content (400 `BadDigest`); the stored object answers it with `checksumType` `FULL_OBJECT` (a
 *   multipart upload's composite checksum, `<base64>-<parts>`, is `COMPOSITE`).
 * - Files are listed by path prefix and deleted by reference (bytes subtracted once); a file an unfinished
 *   job reads is refused (409 `file_in_use`, `docs/decisions/0026-files-in-use.md`).
 */
export interface UploadRequest {
  fileName: string;
  contentType: string;
  size: number;
  checksumSha256?: string | undefined;
}

export interface StorageLimits {
  maxObjectBytes?: number;
  storageBytesLimit?: number;
}

/** The last path segment of a client's file name, reduced to `A-Z a-z 0-9 . _ -` (at most 128 characters). */
export const sanitiseFileName = (fileName: string): string => {
  const base = fileName.split(/[/\\]/).pop() ?? '';
  const ascii = base.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const safe = ascii
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(-128)
    .replace(/^[.-]+/, '');
  return safe === '' ? 'file' : safe;
};

/** `companies/<companyId>/uploads/<ulid>/<sanitised file name>`: where an upload is reserved. */
export const uploadPath = (companyId: string, fileName: string, now: Date): string =>
  `${companyObjectPrefix(companyId, 'uploads')}${ulid(now.getTime())}/${sanitiseFileName(fileName)}`;

/** 413 `payload_too_large` for a declared size over the plan's `maxObjectBytes`. */
export const refuseOversize = (size: number, limits: StorageLimits): void => {
  if (limits.maxObjectBytes !== undefined && size > limits.maxObjectBytes) {
    throw new AppError(
      'payload_too_large',
      `Files of your plan may be at most ${limits.maxObjectBytes} bytes.`,
      {
        errors: [{ pointer: '/body/size', message: `size must be at most ${limits.maxObjectBytes}` }],
        extensions: { limit: limits.maxObjectBytes },
      },
    );
  }
};

export const createUpload = async (
  companyId: string,
  request: UploadRequest,
  limits: StorageLimits,
  now: Date,
) => {
  refuseOversize(request.size, limits);
  const bucket = env().bucketName;
  const fullPath = uploadPath(companyId, request.fileName, now);
  const expiresAt = new Date(now.getTime() + UPLOAD_URL_SECONDS * 1000).toISOString();
  await reserveUpload(
    companyId,
    {
      bucket,
      fullPath,
      size: request.size,
      contentType: request.contentType,
      fileName: request.fileName,
      expiresAt,
      ...(request.checksumSha256 === undefined ? {} : { checksumSha256: request.checksumSha256 }),
    },
    now,
  );
  const { url, headers } = await presignUpload(bucket, fullPath, request, UPLOAD_URL_SECONDS);
  return { uploadUrl: url, method: 'PUT' as const, headers, bucket, fullPath, expiresAt };
};

const answer = (object: StoredObject) => ({
  bucket: object.bucket,
  fullPath: object.fullPath,
  size: object.size,
  contentType: object.contentType,
  ...(object.checksumSha256 === undefined
    ? {}
    : { checksumSha256: object.checksumSha256, checksumType: checksumTypeOf(object.checksumSha256) }),
});

export const finishUpload = async (
  companyId: string,
  input: { bucket?: string; fullPath: string },
  limits: StorageLimits,
  now: Date,
) => {
  const reference = parseStorageReference(companyId, input);
  const head = await headObject(reference.bucket, reference.fullPath);
  if (!head) throw new NotFoundError('Nothing was uploaded at this reference.');
  const outcome = await completeUpload(
    companyId,
    { ...reference, ...head, contentType: head.contentType.toLowerCase(), createdAt: now.toISOString() },
    limits.storageBytesLimit,
  );
  switch (outcome.kind) {
    case 'created':
    case 'existing':
      return answer(outcome.object);
    case 'no_reservation':
      throw new NotFoundError('No upload was reserved at this reference.');
    case 'mismatch': {
      await deleteObject(reference.bucket, reference.fullPath);
      const errors = [
        ...(outcome.declared.size === head.size
          ? []
          : [
              {
                pointer: '/body/fullPath',
                message: `uploaded ${head.size} bytes, declared ${outcome.declared.size}`,
              },
            ]),
        ...(outcome.declared.contentType === head.contentType.toLowerCase()
          ? []
          : [
              {
                pointer: '/body/fullPath',
                message: `uploaded type ${head.contentType}, declared ${outcome.declared.contentType}`,
              },
            ]),
      ];
      // Only a declared checksum can mismatch: a multipart upload's composite was never declared.
      if (
        outcome.declared.checksumSha256 !== undefined &&
        outcome.declared.checksumSha256 !== head.checksumSha256
      )
        errors.push({
          pointer: '/body/fullPath',
          message: 'uploaded content does not match the declared checksum',
        });
      throw new AppError(
        'upload_mismatch',
        'The uploaded object does not match the declared size and type; it was deleted. Upload it again.',
        {
          errors,
          extensions: {
            declared: outcome.declared,
            received: {
              size: head.size,
              contentType: head.contentType,
              ...(head.checksumSha256 === undefined ? {} : { checksumSha256: head.checksumSha256 }),
            },
          },
        },
      );
    }
    case 'storage_limit_reached':
      await deleteObject(reference.bucket, reference.fullPath);
      throw new AppError(
        'storage_limit_reached',
        'Storing this object would exceed the storage allowance of your plan; it was deleted.',
        { extensions: { limit: limits.storageBytesLimit } },
      );
  }
};

export const createDownloadUrl = async (
  companyId: string,
  input: { bucket?: string; fullPath: string; expiresIn?: number },
  now: Date,
) => {
  const object = await resolveStoredObject(companyId, input, '/query/fullPath');
  const expiresIn = input.expiresIn ?? DEFAULT_DOWNLOAD_URL_SECONDS;
  const url = await presignDownload(object.bucket, object.fullPath, expiresIn);
  return { url, expiresAt: new Date(now.getTime() + expiresIn * 1000).toISOString() };
};

/**
 * `prefix` as a path prefix of the company's files: absent means all of them; a prefix of another company's
 * root is 404 like another company's reference; a malformed one is 400 `invalid_storage_reference`.
 */
const filePrefix = (companyId: string, prefix: string | undefined): string => {
  const root = companyStoragePrefix(companyId);
  if (prefix === undefined || prefix === '') return root;
  // A prefix is a path, or a path's start: check it as a path (a trailing `/` or a partial segment is fine).
  const problem = storagePathProblem(prefix.endsWith('/') ? `${prefix}x` : prefix);
  if (problem !== undefined) {
    throw new AppError(
      'invalid_storage_reference',
      `The prefix is not valid: ${problem.replace('fullPath', 'prefix')}`,
      {
        errors: [{ pointer: '/query/prefix', message: problem.replace('fullPath', 'prefix') }],
      },
    );
  }
  if (root.startsWith(prefix)) return root;
  if (!prefix.startsWith(root)) throw new NotFoundError('No files of yours are under this prefix.');
  return prefix;
};

/**
 * A page of the company's stored objects under `prefix`, in path order. The cursor is the last `fullPath`
 * shown: one that is not under the prefix cannot be a cursor of this list and is refused (400).
 */
export const listFiles = async (
  companyId: string,
  request: PageRequest & { prefix?: string | undefined },
) => {
  const prefix = filePrefix(companyId, request.prefix);
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const cursor = listCursor(request.cursor, new RegExp(`^${escaped}[A-Za-z0-9._~+=@,()/-]+$`));
  const page = await listStoredObjects(companyId, {
    prefix,
    limit: request.limit ?? DEFAULT_FILE_PAGE,
    cursor,
  });
  return {
    files: page.objects.map((object) => ({ ...answer(object), createdAt: object.createdAt })),
    nextCursor: page.nextCursor,
  };
};

/**
 * Deletes a stored object: its record goes and its bytes leave `storageBytes` in one transaction (a repeated
 * or racing delete finds nothing and answers 404), then the object itself. A file an unfinished transcode
 * or transcription reads is refused with 409 `file_in_use` (`docs/decisions/0026-files-in-use.md`).
 */
export const deleteFile = async (companyId: string, input: { bucket?: string; fullPath: string }) => {
  const object = await resolveStoredObject(companyId, input, '/query/fullPath');
  const readers = await unfinishedJobsReading(companyId, object.fullPath);
  if (readers.length > 0) {
    throw new AppError(
      'file_in_use',
      'Unfinished jobs read this file; cancel them or wait for them to end.',
      {
        extensions: { jobIds: readers },
      },
    );
  }
  const deleted = await deleteStoredObject(companyId, object);
  if (!deleted) throw new NotFoundError('No stored object at this reference.');
  await deleteObject(object.bucket, object.fullPath);
  return { deleted: true as const, bucket: object.bucket, fullPath: object.fullPath };
};
