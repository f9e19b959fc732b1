import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { checksumSigning, s3 } from './s3';

/**
 * The multipart calls of the storage routes: start an upload, sign one URL per part, list the parts S3 holds,
 * complete and abort. Each part URL binds the part's exact length, so every part but the last is the
 * declared part size and the assembled object has the declared size. An upload started with the SHA-256
 * checksum algorithm has a checksum per part: each part URL is signed for its part's `x-amz-checksum-sha256`
 * (S3 refuses other bytes with 400 `BadDigest`, as for a single upload, `./s3.ts`), the completion names each
 * part's checksum, and the object gets S3's composite checksum (`types/checksums.ts`).
 */

/** A part S3 holds: its number, its ETag (quotes removed), its size and, when it has one, its checksum. */
export interface ReceivedPart {
  partNumber: number;
  etag: string;
  size: number;
  checksumSha256?: string;
}

/** The one checksum algorithm multipart uploads take. */
export type MultipartChecksumAlgorithm = 'SHA256';

const unquoted = (etag: string | undefined): string => (etag ?? '').replaceAll('"', '');

const errorName = (error: unknown): string | undefined => (error instanceof Error ? error.name : undefined);

/** Starts a multipart upload of `key` with its content type (and checksum algorithm); answers S3's upload id. */
export const startMultipartUpload = async (
  bucket: string,
  key: string,
  contentType: string,
  checksumAlgorithm?: MultipartChecksumAlgorithm,
) => {
  const out = await s3().send(
    new CreateMultipartUploadCommand({
      Bucket: bucket,
      Key: key,
      ContentType: contentType,
      ...(checksumAlgorithm === undefined ? {} : { ChecksumAlgorithm: checksumAlgorithm }),
    }),
  );
  if (!out.UploadId) throw new Error('CreateMultipartUpload answered no UploadId');
  return out.UploadId;
};

/**
 * A presigned UploadPart URL bound to the part's exact length (`Content-Length`) and, with `checksumSha256`,
 * to its content (`checksumSigning`); `headers` are what the uploader sends.
 */
export const presignUploadPart = async (
  bucket: string,
  key: string,
  part: { uploadId: string; partNumber: number; size: number; checksumSha256?: string | undefined },
  expiresIn: number,
): Promise<{ url: string; headers: Record<string, string> }> => {
  const checksum = checksumSigning(part.checksumSha256);
  const url = await getSignedUrl(
    s3(),
    new UploadPartCommand({
      Bucket: bucket,
      Key: key,
      UploadId: part.uploadId,
      PartNumber: part.partNumber,
      ContentLength: part.size,
      ...checksum.command,
    }),
    {
      expiresIn,
      signableHeaders: new Set(['content-length', ...checksum.signed]),
      unhoistableHeaders: checksum.unhoistableHeaders,
    },
  );
  return { url, headers: { 'Content-Length': String(part.size), ...checksum.headers } };
};

/**
 * Every part S3 holds for the upload, in part-number order (ListParts pages of 1000), or undefined when
 * the upload is gone (completed or aborted).
 */
export const listUploadedParts = async (
  bucket: string,
  key: string,
  uploadId: string,
): Promise<ReceivedPart[] | undefined> => {
  const parts: ReceivedPart[] = [];
  let marker: string | undefined;
  try {
    do {
      const out = await s3().send(
        new ListPartsCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          ...(marker === undefined ? {} : { PartNumberMarker: marker }),
        }),
      );
      for (const part of out.Parts ?? [])
        parts.push({
          partNumber: Number(part.PartNumber),
          etag: unquoted(part.ETag),
          size: Number(part.Size ?? 0),
          ...(part.ChecksumSHA256 ? { checksumSha256: part.ChecksumSHA256 } : {}),
        });
      marker = out.IsTruncated ? out.NextPartNumberMarker : undefined;
    } while (marker !== undefined);
  } catch (error) {
    if (errorName(error) === 'NoSuchUpload') return undefined;
    throw error;
  }
  return parts;
};

/** Why S3 refused to assemble the parts: a part it does not hold, parts out of order, or one too small. */
export type CompleteRefusal =
  | { refused: 'no_such_upload' }
  | { refused: 'parts'; code: string; message: string };

const PART_PROBLEMS = new Set(['InvalidPart', 'InvalidPartOrder', 'EntityTooSmall', 'MalformedXML']);

/**
 * Assembles the parts into the object, each named by its ETag and, for an upload with checksums, its
 * checksum; answers the refusal when S3 refuses the part list or the upload is gone.
 */
export const completeMultipart = async (
  bucket: string,
  key: string,
  uploadId: string,
  parts: readonly { partNumber: number; etag: string; checksumSha256?: string | undefined }[],
): Promise<CompleteRefusal | undefined> => {
  try {
    await s3().send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: {
          Parts: parts.map((part) => ({
            PartNumber: part.partNumber,
            ETag: `"${unquoted(part.etag)}"`,
            ...(part.checksumSha256 === undefined ? {} : { ChecksumSHA256: part.checksumSha256 }),
          })),
        },
      }),
    );
    return undefined;
  } catch (error) {
    const name = errorName(error);
    if (name === 'NoSuchUpload') return { refused: 'no_such_upload' };
    if (name !== undefined && PART_PROBLEMS.has(name))
      return { refused: 'parts', code: name, message: (error as Error).message };
    throw error;
  }
};

/** Aborts the upload (S3 drops its parts); an upload already gone is fine. */
export const abortMultipart = async (bucket: string, key: string, uploadId: string): Promise<void> => {
  try {
    await s3().send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
  } catch (error) {
    if (errorName(error) !== 'NoSuchUpload') throw error;
  }
};
