import {
  abortMultipart,
  completeMultipart,
  listUploadedParts,
  type MultipartChecksumAlgorithm,
  presignUploadPart,
  type ReceivedPart,
  startMultipartUpload,
} from '../aws/s3-multipart';
import {
  deleteMultipartReservation,
  getUploadReservation,
  type MultipartLayout,
  reserveUpload,
  type UploadReservation,
} from '../data/stored-objects';
import { env } from '../env';
import { AppError, type FieldError, NotFoundError, ValidationError } from '../errors';
import { ulid } from '../ids';
import { compositeChecksumSha256 } from '../types/checksums';
import { companyObjectPrefix } from '../types/object-prefixes';
import { finishUpload, refuseOversize, type StorageLimits, sanitiseFileName } from './storage';
import {
  DEFAULT_PART_BYTES,
  MAX_PART_URLS,
  MAX_PARTS,
  MULTIPART_RESERVATION_SECONDS,
  PART_URL_SECONDS,
} from './storage-limits';

/**
 * Multipart uploads, for files too large for one PUT or a single request's patience:
 *
 * - Start: S3 CreateMultipartUpload at `companies/<companyId>/uploads/<ulid>/<file name>` (the layout of a
 *   single upload), a pending reservation of that path holding the declared size and type and the upload's
 *   S3 id, part size and part count (a day to live), and one presigned UploadPart URL per part, each bound to
 *   the part's exact length (at most `MAX_PART_URLS` in one answer).
 * - The upload's id is ours: `<ulid>_<file name>`, the two last segments of its path. The path is always
 *   rebuilt under the caller's own company, so an id can only ever name the caller's own reservation:
 *   another company's id answers 404 like an unknown one, and no lookup item is needed.
 * - Reading it lists the parts S3 holds (ListParts) and answers fresh URLs for the missing ones (resuming).
 * - Completing sends the client's part list to S3 (400 `multipart_parts_invalid` when it is not exactly parts
 *   1 to `partCount` in order with the ETags S3 answered), then records the object as upload-complete does.
 * - Aborting drops the parts (AbortMultipartUpload) and the reservation.
 * - With `checksumAlgorithm: SHA256` (S3's checksums of multipart uploads) every part has a checksum: a part
 *   URL can only be signed for its checksum, so the upload answers no part URLs and the client asks for each
 *   with its part's checksum (`signPartUrls`); S3 refuses other bytes (400 `BadDigest`). The completion
 *   names each part's checksum (a part without one is a refused part list), S3 checks them against the parts
 *   it holds and gives the object the composite checksum (`types/checksums.ts`), which the stored object
 *   answers with `checksumType: COMPOSITE`. A composite the client gives at completion is compared with the
 *   one the listed parts make before anything is assembled (400 `multipart_checksum_mismatch`).
 */
export interface MultipartRequest {
  fileName: string;
  contentType: string;
  size: number;
  partSize?: number | undefined;
  checksumAlgorithm?: MultipartChecksumAlgorithm | undefined;
}

type PendingMultipart = UploadReservation & { multipart: MultipartLayout };

const ID_PATTERN = /^([0-9a-z]{26})_([A-Za-z0-9._-]{1,128})$/;

/** The reserved path an upload id names, under the caller's company (the id is `<ulid>_<file name>`). */
const pathOfId = (companyId: string, id: string): string => {
  const match = ID_PATTERN.exec(id);
  if (!match) throw new NotFoundError('No multipart upload with this id.');
  return `${companyObjectPrefix(companyId, 'uploads')}${match[1]}/${match[2]}`;
};

/** The id of an upload at `fullPath`: its two last path segments. */
const idOfPath = (fullPath: string): string => fullPath.split('/').slice(-2).join('_');

const partBytes = (size: number, layout: MultipartLayout, partNumber: number): number =>
  partNumber < layout.partCount ? layout.partSize : size - layout.partSize * (layout.partCount - 1);

/** Presigned URLs of parts of the upload, each signed for its exact length and its checksum when given. */
const partUrls = (
  reservation: PendingMultipart,
  parts: readonly { partNumber: number; checksumSha256?: string | undefined }[],
  now: Date,
) => {
  const { multipart: layout } = reservation;
  const expiresAt = new Date(now.getTime() + PART_URL_SECONDS * 1000).toISOString();
  return Promise.all(
    parts.map(async ({ partNumber, checksumSha256 }) => {
      const size = partBytes(reservation.size, layout, partNumber);
      const { url, headers } = await presignUploadPart(
        reservation.bucket,
        reservation.fullPath,
        { uploadId: layout.uploadId, partNumber, size, checksumSha256 },
        PART_URL_SECONDS,
      );
      return { partNumber, size, url, method: 'PUT' as const, headers, expiresAt };
    }),
  );
};

/**
 * Presigned URLs for the parts S3 does not hold yet, the first `MAX_PART_URLS` of them; none for an upload
 * with checksums, whose part URLs need the parts' checksums (`signPartUrls`).
 */
const missingPartUrls = (reservation: PendingMultipart, received: readonly ReceivedPart[], now: Date) => {
  const { multipart: layout } = reservation;
  if (layout.checksumAlgorithm !== undefined) return Promise.resolve([]);
  const held = new Set(received.map((part) => part.partNumber));
  const missing: { partNumber: number }[] = [];
  for (let n = 1; n <= layout.partCount && missing.length < MAX_PART_URLS; n++)
    if (!held.has(n)) missing.push({ partNumber: n });
  return partUrls(reservation, missing, now);
};

const describeUpload = async (
  reservation: PendingMultipart,
  received: readonly ReceivedPart[],
  now: Date,
) => ({
  id: idOfPath(reservation.fullPath),
  uploadId: reservation.multipart.uploadId,
  bucket: reservation.bucket,
  fullPath: reservation.fullPath,
  size: reservation.size,
  contentType: reservation.contentType,
  partSize: reservation.multipart.partSize,
  partCount: reservation.multipart.partCount,
  expiresAt: reservation.expiresAt,
  ...(reservation.multipart.checksumAlgorithm === undefined
    ? {}
    : { checksumAlgorithm: reservation.multipart.checksumAlgorithm }),
  receivedParts: received.map(({ partNumber, etag, size, checksumSha256 }) => ({
    partNumber,
    etag,
    size,
    ...(checksumSha256 === undefined ? {} : { checksumSha256 }),
  })),
  parts: await missingPartUrls(reservation, received, now),
});

export const createMultipartUpload = async (
  companyId: string,
  request: MultipartRequest,
  limits: StorageLimits,
  now: Date,
) => {
  refuseOversize(request.size, limits);
  const partSize = request.partSize ?? DEFAULT_PART_BYTES;
  const partCount = Math.max(1, Math.ceil(request.size / partSize));
  if (partCount > MAX_PARTS) {
    const message = `size and partSize make ${partCount} parts; at most ${MAX_PARTS}: use larger parts`;
    throw new AppError('validation_failed', `The upload would have too many parts: ${message}.`, {
      errors: [{ pointer: '/body/partSize', message }],
    });
  }
  const bucket = env().bucketName;
  const fullPath = `${companyObjectPrefix(companyId, 'uploads')}${ulid(now.getTime())}/${sanitiseFileName(request.fileName)}`;
  const { checksumAlgorithm } = request;
  const uploadId = await startMultipartUpload(bucket, fullPath, request.contentType, checksumAlgorithm);
  const reservation = {
    bucket,
    fullPath,
    size: request.size,
    contentType: request.contentType,
    fileName: request.fileName,
    expiresAt: new Date(now.getTime() + MULTIPART_RESERVATION_SECONDS * 1000).toISOString(),
    multipart: {
      uploadId,
      partSize,
      partCount,
      ...(checksumAlgorithm === undefined ? {} : { checksumAlgorithm }),
    },
  };
  await reserveUpload(companyId, reservation, now);
  return describeUpload(reservation, [], now);
};

/** The caller's unfinished multipart upload with this id, or 404. */
const pendingUpload = async (companyId: string, id: string): Promise<PendingMultipart> => {
  const state = await getUploadReservation(companyId, pathOfId(companyId, id));
  if (state?.status !== 'pending' || state.reservation.multipart === undefined)
    throw new NotFoundError('No unfinished multipart upload with this id.');
  return { ...state.reservation, multipart: state.reservation.multipart };
};

export const getMultipartUpload = async (companyId: string, id: string, now: Date) => {
  const reservation = await pendingUpload(companyId, id);
  const received = await listUploadedParts(
    reservation.bucket,
    reservation.fullPath,
    reservation.multipart.uploadId,
  );
  if (!received) throw new NotFoundError('This multipart upload is no longer open.');
  return describeUpload(reservation, received, now);
};

/**
 * Which parts break the checksum rule of the upload: with `checksumAlgorithm` every part names its
 * checksum, without it none does.
 */
const checksumProblems = (
  parts: readonly { checksumSha256?: string | undefined }[],
  layout: MultipartLayout,
): FieldError[] =>
  parts.flatMap((part, index) => {
    const pointer = `/body/parts/${index}/checksumSha256`;
    if (layout.checksumAlgorithm !== undefined && part.checksumSha256 === undefined)
      return [{ pointer, message: 'required: the upload was started with checksumAlgorithm SHA256' }];
    if (layout.checksumAlgorithm === undefined && part.checksumSha256 !== undefined)
      return [{ pointer, message: 'not allowed: the upload was started without checksumAlgorithm' }];
    return [];
  });

/**
 * Signed URLs of the parts asked for (any of 1 to `partCount`, again as often as needed), each bound to its
 * length and, for an upload with `checksumAlgorithm`, to the checksum given for it.
 */
export const signPartUrls = async (
  companyId: string,
  id: string,
  body: { parts: readonly { partNumber: number; checksumSha256?: string | undefined }[] },
  now: Date,
) => {
  const reservation = await pendingUpload(companyId, id);
  const { partCount } = reservation.multipart;
  const errors: FieldError[] = [
    ...body.parts.flatMap((part, index) =>
      part.partNumber <= partCount
        ? []
        : [{ pointer: `/body/parts/${index}/partNumber`, message: `the upload has parts 1 to ${partCount}` }],
    ),
    ...checksumProblems(body.parts, reservation.multipart),
  ];
  if (errors.length > 0) throw new ValidationError(errors.slice(0, 20));
  return { parts: await partUrls(reservation, body.parts, now) };
};

const partsRefused = (message: string, errors: FieldError[], extensions?: Record<string, unknown>) =>
  new AppError('multipart_parts_invalid', message, {
    errors,
    ...(extensions === undefined ? {} : { extensions }),
  });

/** The part list must be parts 1 to `partCount`, each once, in order. */
const checkPartList = (parts: readonly { partNumber: number }[], partCount: number): void => {
  const errors: FieldError[] = parts.flatMap((part, index) =>
    part.partNumber === index + 1
      ? []
      : [{ pointer: `/body/parts/${index}/partNumber`, message: `part ${index + 1} expected here` }],
  );
  if (parts.length !== partCount)
    errors.push({ pointer: '/body/parts', message: `${partCount} parts expected, ${parts.length} given` });
  if (errors.length > 0)
    throw partsRefused(
      `The part list must name parts 1 to ${partCount}, each once, in order, with the ETag each answered.`,
      errors.slice(0, 20),
    );
};

const UPLOAD_GONE = new Set(['upload_mismatch', 'storage_limit_reached']);

/**
 * A composite checksum the client gives must be the one the listed parts' checksums make (checked before S3
 * assembles anything, so the upload stays open); only an upload with checksums has one.
 */
const checkCompositeChecksum = (
  parts: readonly { checksumSha256?: string | undefined }[],
  given: string | undefined,
  layout: MultipartLayout,
): void => {
  if (given === undefined) return;
  const pointer = '/body/checksumSha256';
  if (layout.checksumAlgorithm === undefined)
    throw new ValidationError([
      { pointer, message: 'not allowed: the upload was started without checksumAlgorithm' },
    ]);
  const computed = compositeChecksumSha256(parts.map((part) => part.checksumSha256 ?? ''));
  if (computed !== given)
    throw new AppError(
      'multipart_checksum_mismatch',
      "The composite checksum given is not the one the parts' checksums make; nothing was assembled.",
      {
        errors: [{ pointer, message: `the parts make ${computed}` }],
        extensions: { given, computed },
      },
    );
};

export const completeMultipartUpload = async (
  companyId: string,
  id: string,
  body: {
    parts: readonly { partNumber: number; etag: string; checksumSha256?: string | undefined }[];
    checksumSha256?: string | undefined;
  },
  limits: StorageLimits,
  now: Date,
) => {
  const fullPath = pathOfId(companyId, id);
  const state = await getUploadReservation(companyId, fullPath);
  // Completed already (a retry): answered as upload-complete answers it.
  if (state?.status === 'stored') return finishUpload(companyId, { fullPath }, limits, now);
  if (state?.reservation.multipart === undefined)
    throw new NotFoundError('No unfinished multipart upload with this id.');
  const { bucket, multipart } = state.reservation;
  checkPartList(body.parts, multipart.partCount);
  const checksums = checksumProblems(body.parts, multipart);
  if (checksums.length > 0)
    throw partsRefused(
      'Every part of an upload with checksumAlgorithm names its checksum, and no part of another does.',
      checksums.slice(0, 20),
    );
  checkCompositeChecksum(body.parts, body.checksumSha256, multipart);
  const refusal = await completeMultipart(bucket, fullPath, multipart.uploadId, body.parts);
  if (refusal?.refused === 'parts')
    throw partsRefused(
      'Storage refused the part list: each part must have been uploaded and named with the ETag it answered.',
      [{ pointer: '/body/parts', message: refusal.message }],
      { storageCode: refusal.code },
    );
  // `no_such_upload`: a racing completion assembled it first (finishing finds the object), or it was aborted.
  try {
    return await finishUpload(companyId, { bucket, fullPath }, limits, now);
  } catch (error) {
    // The assembled object was refused and deleted: the upload is over, so is its reservation.
    if (error instanceof AppError && UPLOAD_GONE.has(error.code))
      await deleteMultipartReservation(companyId, fullPath, multipart.uploadId);
    throw error;
  }
};

export const abortMultipartUpload = async (companyId: string, id: string) => {
  const reservation = await pendingUpload(companyId, id);
  const { bucket, fullPath, multipart } = reservation;
  await abortMultipart(bucket, fullPath, multipart.uploadId);
  if (!(await deleteMultipartReservation(companyId, fullPath, multipart.uploadId)))
    throw new NotFoundError('No unfinished multipart upload with this id.');
  return { deleted: true as const, id, fullPath };
};
