import { Agent } from 'node:http';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { env } from '../env';
import { lazy } from '../lazy';
import { tracer } from '../observability/tracer';
import { currentSignerKey, parseSignerKeySet, SIGNER_REREAD_SECONDS } from './download-signer-keys';
import { readSecretString } from './secrets-manager';

/**
 * The one S3 client of a process and the few operations the platform makes on its bucket.
 *
 * Checksums are computed only when S3 requires them: presigned PUT URLs then carry no checksum header the
 * uploader would have to reproduce, and s3rver (local stack, `S3_ENDPOINT`) stores streamed bodies as sent.
 */
const { region, s3Endpoint, s3Credentials } = env();

const baseConfig: S3ClientConfig = {
  region,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
  ...(s3Endpoint
    ? {
        endpoint: s3Endpoint,
        forcePathStyle: true,
        // The local S3's own key (`S3_ACCESS_KEY_ID`), the one key its signature front accepts.
        ...(s3Credentials ? { credentials: s3Credentials } : {}),
        // s3rver closes idle connections on its own schedule: a reused one can be reset mid-request, and a
        // streamed upload cannot be retried. One connection per request avoids the race.
        requestHandler: { httpAgent: new Agent({ keepAlive: false }) },
      }
    : {}),
};

/** The process's S3 client, built by the first call that needs it (not every request of a group does). */
export const s3 = /* @__PURE__ */ lazy(() => tracer.captureAWSv3Client(new S3Client(baseConfig)));

export interface ObjectHead {
  size: number;
  contentType: string;
  etag: string;
  /** The base64 SHA-256 S3 checked and stored with the object, when it was uploaded with one. */
  checksumSha256?: string;
}

/**
 * S3 answers a missing key with 404 only to callers allowed to list the bucket; the functions may list only
 * under `companies/` (an `s3:prefix` condition that a HEAD or GET request does not carry), so on AWS a
 * missing object answers 403. Keys reaching here were built or validated under the caller's own prefix,
 * where the function may read every object, so a 403 means the object is not there.
 */
const isMissing = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return error.name === 'NotFound' || error.name === 'NoSuchKey' || status === 404 || status === 403;
};

/** Size, content type and ETag of an object, or undefined when there is none. */
export const headObject = async (bucket: string, key: string): Promise<ObjectHead | undefined> => {
  try {
    const out = await s3().send(new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
    return {
      size: Number(out.ContentLength ?? 0),
      contentType: out.ContentType ?? 'application/octet-stream',
      etag: (out.ETag ?? '').replaceAll('"', ''),
      ...(out.ChecksumSHA256 ? { checksumSha256: out.ChecksumSHA256 } : {}),
    };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
};

export const putObject = async (
  bucket: string,
  key: string,
  body: Uint8Array | string,
  contentType: string,
): Promise<{ etag: string }> => {
  const out = await s3().send(
    new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }),
  );
  return { etag: (out.ETag ?? '').replaceAll('"', '') };
};

export const deleteObject = async (bucket: string, key: string): Promise<void> => {
  await s3().send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
};

/**
 * What signing a PUT for a base64 SHA-256 `checksumSha256` adds (nothing without one): the command's
 * `ChecksumSHA256`, `x-amz-checksum-sha256` among the signed headers and kept a header (never hoisted into
 * the query), and that header among those the uploader sends. S3 refuses a body whose SHA-256 differs
 * (400 `BadDigest`).
 */
export const checksumSigning = (checksumSha256: string | undefined) => {
  const names = checksumSha256 === undefined ? [] : ['x-amz-checksum-sha256'];
  return {
    command: checksumSha256 === undefined ? {} : { ChecksumSHA256: checksumSha256 },
    signed: names,
    unhoistableHeaders: new Set(names),
    headers: (checksumSha256 === undefined ? {} : { 'x-amz-checksum-sha256': checksumSha256 }) as Record<
      string,
      string
    >,
  };
};

/**
 * A presigned PUT that binds the content type and the exact length, and with `checksumSha256` the content
 * itself (`checksumSigning`): S3 checks every signed header, so the stored object cannot differ from what
 * was declared. The uploader must send exactly `headers`.
 */
export const presignUpload = async (
  bucket: string,
  key: string,
  declared: { contentType: string; size: number; checksumSha256?: string | undefined },
  expiresIn: number,
): Promise<{ url: string; headers: Record<string, string> }> => {
  const { contentType, size } = declared;
  const checksum = checksumSigning(declared.checksumSha256);
  const url = await getSignedUrl(
    s3(),
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      ContentType: contentType,
      ContentLength: size,
      ...checksum.command,
    }),
    {
      expiresIn,
      signableHeaders: new Set(['content-type', 'content-length', ...checksum.signed]),
      unhoistableHeaders: checksum.unhoistableHeaders,
    },
  );
  return {
    url,
    headers: { 'Content-Type': contentType, 'Content-Length': String(size), ...checksum.headers },
  };
};

let downloadSigner: { secret: string; client: S3Client } | undefined;

/**
 * Download URLs may live 7 days, longer than any role session: on AWS they are signed with a long-lived access
 * key of a read-only IAM user, kept in Secrets Manager (`DOWNLOAD_SIGNER_SECRET_ARN`, a key set rotated by
 * `functions/download-signer-rotation`). The newest key of the set signs; the set is kept
 * `SIGNER_REREAD_SECONDS` (Powertools Parameters, `./secrets-manager`), so a retired key stops signing within
 * the hour, long before it is deleted; the signing client is made again only when the set changed. Without
 * the secret (local stack) the main client signs.
 */
const downloadSignerClient = async (): Promise<S3Client> => {
  const secretArn = env().downloadSignerSecretArn;
  if (!secretArn) return s3();
  const secret = await readSecretString(secretArn, { maxAgeSeconds: SIGNER_REREAD_SECONDS });
  if (downloadSigner?.secret !== secret) {
    const { accessKeyId, secretAccessKey } = currentSignerKey(parseSignerKeySet(secret));
    const client = tracer.captureAWSv3Client(
      new S3Client({ ...baseConfig, credentials: { accessKeyId, secretAccessKey } }),
    );
    downloadSigner = { secret, client };
  }
  return downloadSigner.client;
};

/** A presigned GET valid for `expiresIn` seconds (at most 604800, SigV4's own ceiling). */
export const presignDownload = async (bucket: string, key: string, expiresIn: number): Promise<string> =>
  getSignedUrl(await downloadSignerClient(), new GetObjectCommand({ Bucket: bucket, Key: key }), {
    expiresIn,
  });
