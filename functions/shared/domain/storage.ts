import { deleteObject, headObject, presignDownload, presignUpload } from '../aws/s3';
import { completeUpload, reserveUpload, type StoredObject } from '../data/stored-objects';
import { env } from '../env';
import { AppError, NotFoundError } from '../errors';
import { ulid } from '../ids';
import { companyObjectPrefix } from '../types/object-prefixes';
import { DEFAULT_DOWNLOAD_URL_SECONDS, UPLOAD_URL_SECONDS } from './storage-limits';
import { parseStorageReference, resolveStoredObject } from './storage-references';

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
 */
export interface UploadRequest {
  fileName: string;
  contentType: string;
  size: number;
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

export const createUpload = async (
  companyId: string,
  request: UploadRequest,
  limits: StorageLimits,
  now: Date,
) => {
  if (limits.maxObjectBytes !== undefined && request.size > limits.maxObjectBytes) {
    throw new AppError(
      'payload_too_large',
      `Files of your plan may be at most ${limits.maxObjectBytes} bytes.`,
      {
        errors: [{ pointer: '/body/size', message: `size must be at most ${limits.maxObjectBytes}` }],
        extensions: { limit: limits.maxObjectBytes },
      },
    );
  }
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
    },
    now,
  );
  const { url, headers } = await presignUpload(
    bucket,
    fullPath,
    request.contentType,
    request.size,
    UPLOAD_URL_SECONDS,
  );
  return { uploadUrl: url, method: 'PUT' as const, headers, bucket, fullPath, expiresAt };
};

const answer = (object: StoredObject) => ({
  bucket: object.bucket,
  fullPath: object.fullPath,
  size: object.size,
  contentType: object.contentType,
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
      throw new AppError(
        'upload_mismatch',
        'The uploaded object does not match the declared size and type; it was deleted. Upload it again.',
        {
          errors,
          extensions: {
            declared: outcome.declared,
            received: { size: head.size, contentType: head.contentType },
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
