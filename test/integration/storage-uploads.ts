import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { call, type createTenant } from './support';

/** The two-step upload and the download URL as a client drives them, for the storage tests. */
export type Tenant = Awaited<ReturnType<typeof createTenant>>;
export interface UploadAnswer {
  uploadUrl: string;
  method: string;
  headers: Record<string, string>;
  bucket: string;
  fullPath: string;
  expiresAt: string;
}

export const auth = (tenant: Tenant) => ({ 'x-api-key': tenant.apiKey });

export const reserve = async (
  tenant: Tenant,
  body: { fileName: string; contentType: string; size: number; checksumSha256?: string },
) => {
  const res = await call('POST', '/v1/storage/upload-url', { headers: auth(tenant), body });
  if (res.status !== 200) throw new Error(`upload-url answered ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as unknown as UploadAnswer;
};

export const put = (
  answer: UploadAnswer,
  bytes: Uint8Array,
  headers: Record<string, string> = answer.headers,
) => fetch(answer.uploadUrl, { method: answer.method, headers, body: bytes });

export const complete = (tenant: Tenant, reference: { bucket?: string; fullPath: string }) =>
  call('POST', '/v1/storage/upload-complete', { headers: auth(tenant), body: reference });

export const downloadUrl = (tenant: Tenant, query: Record<string, string>) =>
  call('GET', `/v1/storage/url?${new URLSearchParams(query)}`, { headers: auth(tenant) });

export const storageBytes = async (tenant: Tenant): Promise<number> => {
  const res = await call('GET', '/v1/usage', { headers: auth(tenant) });
  return (res.json.usage as { storageBytes: number }).storageBytes;
};

/** Every byte value, then random bytes: a text-mangling hop anywhere would change the download. */
export const binaryFile = (size: number): Uint8Array => {
  const bytes = new Uint8Array(randomBytes(size));
  for (let i = 0; i < Math.min(256, size); i++) bytes[i] = i;
  return bytes;
};

export const upload = async (tenant: Tenant, bytes: Uint8Array, contentType = 'application/octet-stream') => {
  const answer = await reserve(tenant, { fileName: 'data.bin', contentType, size: bytes.length });
  const uploaded = await put(answer, bytes);
  expect(uploaded.status).toBe(200);
  const done = await complete(tenant, { bucket: answer.bucket, fullPath: answer.fullPath });
  expect(done.status).toBe(200);
  return answer;
};

/** A multipart upload as `POST /v1/storage/multipart-uploads` and its read answer it (in `upload`). */
export interface MultipartAnswer {
  id: string;
  uploadId: string;
  bucket: string;
  fullPath: string;
  size: number;
  contentType: string;
  partSize: number;
  partCount: number;
  expiresAt: string;
  checksumAlgorithm?: 'SHA256';
  receivedParts: { partNumber: number; etag: string; size: number; checksumSha256?: string }[];
  parts: PartUrl[];
}
export interface PartUrl {
  partNumber: number;
  size: number;
  url: string;
  method: string;
  headers: Record<string, string>;
  expiresAt: string;
}

export const startMultipart = async (
  tenant: Tenant,
  body: {
    fileName: string;
    contentType: string;
    size: number;
    partSize?: number;
    checksumAlgorithm?: 'SHA256';
  },
) => {
  const res = await call('POST', '/v1/storage/multipart-uploads', { headers: auth(tenant), body });
  if (res.status !== 201)
    throw new Error(`multipart-uploads answered ${res.status} ${JSON.stringify(res.json)}`);
  return (res.json as unknown as { upload: MultipartAnswer }).upload;
};

/** The bytes of part `partNumber` of `file` cut in parts of `partSize`. */
export const partBytes = (file: Uint8Array, partSize: number, partNumber: number) =>
  file.subarray((partNumber - 1) * partSize, partNumber * partSize);

/** Base64 SHA-256, as `x-amz-checksum-sha256`. */
export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');

/** Signed URLs of parts of an upload, with their checksums (`POST …/{id}/part-urls`). */
export const partUrls = (
  tenant: Tenant,
  id: string,
  parts: readonly { partNumber: number; checksumSha256?: string }[],
) =>
  call('POST', `/v1/storage/multipart-uploads/${id}/part-urls`, { headers: auth(tenant), body: { parts } });

/** PUTs a part's bytes of `file` to its URL with its signed headers; answers the ETag storage gave it. */
export const putPart = async (
  answer: Pick<MultipartAnswer, 'partSize'>,
  part: PartUrl,
  file: Uint8Array,
): Promise<string> => {
  const res = await fetch(part.url, {
    method: part.method,
    headers: part.headers,
    body: partBytes(file, answer.partSize, part.partNumber),
  });
  if (res.status !== 200)
    throw new Error(`part ${part.partNumber} answered ${res.status} ${await res.text()}`);
  return String(res.headers.get('etag')).replaceAll('"', '');
};

/**
 * A multipart upload of `file` (one part unless `partSize` cuts it), every part sent: ready to complete. With
 * `checksums`, it is started with `checksumAlgorithm: SHA256` and each part's URL is asked for with its checksum.
 */
export const uploadAllParts = async (
  tenant: Tenant,
  file: Uint8Array,
  partSize?: number,
  options: { checksums?: boolean } = {},
) => {
  const answer = await startMultipart(tenant, {
    fileName: 'large.bin',
    contentType: 'application/octet-stream',
    size: file.length,
    ...(partSize === undefined ? {} : { partSize }),
    ...(options.checksums ? { checksumAlgorithm: 'SHA256' as const } : {}),
  });
  let urls = answer.parts;
  if (options.checksums) {
    const wanted = Array.from({ length: answer.partCount }, (_, i) => ({
      partNumber: i + 1,
      checksumSha256: sha256(partBytes(file, answer.partSize, i + 1)),
    }));
    const signed = await partUrls(tenant, answer.id, wanted);
    if (signed.status !== 200)
      throw new Error(`part-urls answered ${signed.status} ${JSON.stringify(signed.json)}`);
    urls = signed.json.parts as PartUrl[];
  }
  const parts = [];
  for (const part of urls)
    parts.push({
      partNumber: part.partNumber,
      etag: await putPart(answer, part, file),
      ...(options.checksums
        ? { checksumSha256: sha256(partBytes(file, answer.partSize, part.partNumber)) }
        : {}),
    });
  return { answer, parts };
};
