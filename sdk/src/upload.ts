import { callFor } from './call-operation.js';
import type { ApiClient } from './client.js';
import type { SuccessBody } from './operation-types.js';
import { type FetchLike, retryingFetch } from './retry.js';

/**
 * `client.storage.upload(source, { contentType })`: stores a file and answers its storage reference
 * (`{ bucket, fullPath, size, contentType, … }`, as `upload-complete` answers it), choosing the API's flow by
 * size (decision 0043, docs/storage.md):
 * - up to `multipartThresholdBytes` (default 16 MiB): `POST /v1/storage/upload-url`, one `PUT` of the bytes
 *   to the presigned URL with the signed headers, `POST /v1/storage/upload-complete`;
 * - above: `POST /v1/storage/multipart-uploads` (`partSize`, default 8 MiB, the API's default), a `PUT` per
 *   part (up to 4 at once, each read from the source in turn, so a stream is never held whole), then
 *   `…/complete` with each part's `ETag`; a failure aborts the upload (`DELETE …/{id}`) before it is thrown.
 *
 * Checksums (SHA-256, base64, what the API and storage check): `checksumSha256` signs a single upload for the
 * caller's digest of the content (storage refuses other bytes; given, the upload is single whatever its
 * size); `checksum: true` has the SDK compute them: the content's for a single upload, each part's and their
 * composite for a multipart one (`checksumAlgorithm: "SHA256"`, the completion compares the composite).
 *
 * The transfers to storage go to the presigned URLs with the `fetch` of the client's options, without the
 * API credential, retried on 5xx and network errors like any `PUT`.
 */

/** The content: bytes, a `Blob` (`File`), text (UTF-8), or a stream of bytes (Node `Readable`, web stream). */
export type UploadSource = Blob | ArrayBuffer | ArrayBufferView | string | AsyncIterable<Uint8Array>;

export interface UploadOptions {
  /** Media type of the stored object. */
  contentType: string;
  /** File name, the last segment of the stored path (default: a `File`'s name, else `upload`). */
  name?: string;
  /** Size in bytes: give it with a stream to send a large one part by part (else the stream is read whole first). */
  size?: number;
  /** The caller's base64 SHA-256 of the content: storage refuses other bytes (a single upload). */
  checksumSha256?: string;
  /** Compute SHA-256 checksums (the content's, or each part's and their composite) and have them checked. */
  checksum?: boolean;
  /** Larger content goes as a multipart upload (default 16 MiB). */
  multipartThresholdBytes?: number;
  /** Bytes of every part but the last (default 8 MiB; the API accepts 5 MiB to 5 GiB). */
  partSize?: number;
}

/** The stored object: `{ bucket, fullPath }` is its storage reference. */
export type UploadedObject = SuccessBody<'completeUpload'>;

export type StorageUpload = (source: UploadSource, options: UploadOptions) => Promise<UploadedObject>;

/** Storage refused a transfer to a presigned URL. */
export class UploadTransferError extends Error {
  readonly status: number;

  constructor(status: number, what: string, detail: string) {
    super(`storage answered ${status} to ${what}${detail === '' ? '' : `: ${detail.slice(0, 300)}`}`);
    this.name = 'UploadTransferError';
    this.status = status;
  }
}

const MIB = 1024 * 1024;
export const MULTIPART_THRESHOLD_BYTES = 16 * MIB;
const DEFAULT_PART_SIZE = 8 * MIB;
/** Parts sent at once: the source is read in turn, so at most this many parts are held in memory. */
const PARTS_IN_FLIGHT = 4;
/** Part URLs asked for at once (the API's most per request). */
const PART_URL_BATCH = 1000;

const isBlob = (value: unknown): value is Blob => typeof Blob !== 'undefined' && value instanceof Blob;

const concat = (chunks: Uint8Array[], length: number): Uint8Array => {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
};

/** Reads a source `size` bytes at a time. */
interface Reader {
  size: number;
  read(bytes: number): Promise<Uint8Array>;
}

const bytesReader = (bytes: Uint8Array): Reader => {
  let at = 0;
  return {
    size: bytes.byteLength,
    read: async (n) => {
      const part = bytes.subarray(at, at + n);
      at += part.byteLength;
      return part;
    },
  };
};

const blobReader = (blob: Blob): Reader => {
  let at = 0;
  return {
    size: blob.size,
    read: async (n) => {
      const part = new Uint8Array(await blob.slice(at, at + n).arrayBuffer());
      at += part.byteLength;
      return part;
    },
  };
};

const streamReader = (stream: AsyncIterable<Uint8Array>, size: number): Reader => {
  const iterator = stream[Symbol.asyncIterator]();
  let pending: Uint8Array[] = [];
  let held = 0;
  return {
    size,
    read: async (n) => {
      while (held < n) {
        const next = await iterator.next();
        if (next.done) break;
        const chunk = next.value instanceof Uint8Array ? next.value : new Uint8Array(next.value);
        pending.push(chunk);
        held += chunk.byteLength;
      }
      const all = concat(pending, held);
      const part = all.subarray(0, Math.min(n, held));
      const rest = all.subarray(part.byteLength);
      pending = rest.byteLength > 0 ? [rest] : [];
      held = rest.byteLength;
      return part;
    },
  };
};

const readAll = async (stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> => {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    length += chunk.byteLength;
  }
  return concat(chunks, length);
};

const readerOf = async (source: UploadSource, size: number | undefined): Promise<Reader> => {
  if (typeof source === 'string') return bytesReader(new TextEncoder().encode(source));
  if (source instanceof ArrayBuffer) return bytesReader(new Uint8Array(source));
  if (ArrayBuffer.isView(source)) {
    return bytesReader(new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
  }
  if (isBlob(source)) return blobReader(source);
  return size === undefined ? bytesReader(await readAll(source)) : streamReader(source, size);
};

const base64 = (bytes: Uint8Array): string => {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
};

const sha256 = async (bytes: Uint8Array): Promise<Uint8Array> =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));

/** The signed headers to send, less `Content-Length`, which `fetch` sets from the body itself. */
const sendable = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-length'));

const fileNameOf = (source: UploadSource, options: UploadOptions): string => {
  if (options.name !== undefined) return options.name;
  const named = isBlob(source) ? (source as Blob & { name?: unknown }).name : undefined;
  return typeof named === 'string' && named !== '' ? named : 'upload';
};

/** `storage.upload` of a client: `api` for the API's calls, `fetch` for the transfers to storage. */
export const uploadWith = (api: ApiClient, fetchImpl: FetchLike): StorageUpload => {
  const transfer = retryingFetch(fetchImpl);
  const put = async (url: string, headers: Record<string, string>, body: Uint8Array, what: string) => {
    const response = await transfer(new Request(url, { method: 'PUT', headers: sendable(headers), body }));
    if (!response.ok) throw new UploadTransferError(response.status, what, await response.text());
    return response;
  };

  const single = async (reader: Reader, fileName: string, options: UploadOptions) => {
    const bytes = await reader.read(reader.size);
    const checksumSha256 =
      options.checksumSha256 ?? (options.checksum === true ? base64(await sha256(bytes)) : undefined);
    const reserved = await callFor(
      api,
      'createUploadUrl',
      {},
      {
        fileName,
        contentType: options.contentType,
        size: reader.size,
        ...(checksumSha256 === undefined ? {} : { checksumSha256 }),
      },
    );
    await put(reserved.uploadUrl, reserved.headers, bytes, 'the upload');
    return callFor(api, 'completeUpload', {}, { bucket: reserved.bucket, fullPath: reserved.fullPath });
  };

  const multipart = async (reader: Reader, fileName: string, options: UploadOptions) => {
    const checksum = options.checksum === true;
    const { upload: started } = await callFor(
      api,
      'createMultipartUpload',
      {},
      {
        fileName,
        contentType: options.contentType,
        size: reader.size,
        partSize: options.partSize ?? DEFAULT_PART_SIZE,
        ...(checksum ? { checksumAlgorithm: 'SHA256' } : {}),
      },
    );
    const path = { id: started.id };
    const urls = new Map(started.parts.map((part) => [part.partNumber, part]));
    const urlOf = async (partNumber: number, checksumSha256: string | undefined) => {
      const known = urls.get(partNumber);
      if (known !== undefined) return known;
      const wanted = checksum
        ? [{ partNumber, checksumSha256 }]
        : Array.from({ length: Math.min(PART_URL_BATCH, started.partCount - partNumber + 1) }, (_, i) => ({
            partNumber: partNumber + i,
          }));
      const asked = await callFor(api, 'createMultipartPartUrls', path, { parts: wanted });
      for (const part of asked.parts) urls.set(part.partNumber, part);
      const found = urls.get(partNumber);
      if (found === undefined) throw new Error(`the API answered no URL for part ${partNumber}`);
      return found;
    };
    try {
      const parts: { partNumber: number; etag: string; checksumSha256?: string }[] = [];
      const digests: Uint8Array[] = [];
      const inFlight = new Set<Promise<void>>();
      let failure: { error: unknown } | undefined;
      for (let partNumber = 1; partNumber <= started.partCount && failure === undefined; partNumber++) {
        const bytes = await reader.read(started.partSize);
        const digest = checksum ? await sha256(bytes) : undefined;
        const checksumSha256 = digest === undefined ? undefined : base64(digest);
        if (digest !== undefined) digests[partNumber - 1] = digest;
        const target = await urlOf(partNumber, checksumSha256);
        const sent = put(target.url, target.headers, bytes, `part ${partNumber}`).then((answer) => {
          const etag = answer.headers.get('etag');
          if (etag === null)
            throw new UploadTransferError(answer.status, `part ${partNumber}`, 'no ETag header');
          parts[partNumber - 1] = {
            partNumber,
            etag,
            ...(checksumSha256 === undefined ? {} : { checksumSha256 }),
          };
        });
        const tracked: Promise<void> = sent
          .catch((error: unknown) => {
            failure ??= { error };
          })
          .then(() => {
            inFlight.delete(tracked);
          });
        inFlight.add(tracked);
        if (inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      if (failure !== undefined) throw failure.error;
      const composite = checksum
        ? `${base64(await sha256(concat(digests, digests.length * 32)))}-${digests.length}`
        : undefined;
      return await callFor(api, 'completeMultipartUpload', path, {
        parts,
        ...(composite === undefined ? {} : { checksumSha256: composite }),
      });
    } catch (error) {
      await callFor(api, 'abortMultipartUpload', path, undefined).catch(() => undefined);
      throw error;
    }
  };

  return async (source, options) => {
    const reader = await readerOf(source, options.size);
    const fileName = fileNameOf(source, options);
    const threshold = options.multipartThresholdBytes ?? MULTIPART_THRESHOLD_BYTES;
    return reader.size > threshold && options.checksumSha256 === undefined
      ? multipart(reader, fileName, options)
      : single(reader, fileName, options);
  };
};
