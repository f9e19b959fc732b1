import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UploadTransferError } from '../../src/upload.js';
import { type Sent, stubClient } from './stub-client.js';

/**
 * `storage.upload` with a stubbed `fetch` standing for the API and storage: the single flow (upload URL, PUT,
 * completion) below the threshold, the multipart flow above it (parts read in turn from a stream, each part's
 * checksum and the composite), and the abort after a failed part.
 */
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();
const stored = {
  bucket: 'b',
  fullPath: 'companies/c/uploads/u/notes.txt',
  size: 11,
  contentType: 'text/plain',
};

/** The API and storage: a multipart upload of `partSize` parts, URLs asked for part by part. */
const storage = (options: { partSize: number; size: number; failPart?: number }) => {
  const puts = new Map<number, Buffer>();
  const answer = (s: Sent) => {
    const partCount = Math.ceil(options.size / options.partSize);
    const route = `${s.method} ${s.path}`;
    if (route === 'POST /v1/storage/upload-url') {
      return {
        body: {
          uploadUrl: 'https://storage.test/one',
          method: 'PUT',
          headers: { 'Content-Type': 'text/plain' },
          bucket: 'b',
          fullPath: stored.fullPath,
        },
      };
    }
    if (route === 'PUT /one') return { body: {}, headers: { etag: '"e"' } };
    if (route === 'POST /v1/storage/upload-complete') return { body: stored };
    if (route === 'POST /v1/storage/multipart-uploads') {
      return {
        status: 201,
        body: { upload: { id: 'mp_1', partSize: options.partSize, partCount, parts: [] } },
      };
    }
    if (route === 'POST /v1/storage/multipart-uploads/mp_1/part-urls') {
      const { parts } = JSON.parse(s.body) as { parts: { partNumber: number; checksumSha256?: string }[] };
      return {
        body: {
          parts: parts.map((p) => ({
            partNumber: p.partNumber,
            url: `https://storage.test/part/${p.partNumber}`,
            headers: {
              'Content-Length': '1',
              ...(p.checksumSha256 ? { 'x-amz-checksum-sha256': p.checksumSha256 } : {}),
            },
          })),
        },
      };
    }
    const part = /^PUT \/part\/(\d+)$/.exec(route);
    if (part) {
      const partNumber = Number(part[1]);
      if (partNumber === options.failPart) return { status: 403, body: { message: 'SignatureDoesNotMatch' } };
      puts.set(partNumber, Buffer.from(s.body));
      return { body: {}, headers: { etag: `"etag-${partNumber}"` } };
    }
    if (route === 'POST /v1/storage/multipart-uploads/mp_1/complete')
      return { body: { ...stored, size: options.size } };
    if (route === 'DELETE /v1/storage/multipart-uploads/mp_1') return { body: { deleted: true, id: 'mp_1' } };
    return { status: 500, body: { code: 'unexpected', detail: route } };
  };
  return { answer, puts };
};

describe('storage.upload', () => {
  it('sends a small body in one PUT to the upload URL and answers the stored object', async () => {
    const { answer } = storage({ partSize: 5, size: 11 });
    const { client, sent } = stubClient(answer);
    const object = await client.storage.upload('hello world', {
      contentType: 'text/plain',
      name: 'notes.txt',
      checksum: true,
    });
    expect(object).toEqual(stored);
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /v1/storage/upload-url',
      'PUT /one',
      'POST /v1/storage/upload-complete',
    ]);
    expect(JSON.parse(sent[0]?.body ?? '')).toEqual({
      fileName: 'notes.txt',
      contentType: 'text/plain',
      size: 11,
      checksumSha256: sha256('hello world').toString('base64'),
    });
    expect(sent[1]?.body).toBe('hello world');
    expect(sent[1]?.headers.get('x-api-key')).toBeNull();
    expect(JSON.parse(sent[2]?.body ?? '')).toEqual({ bucket: 'b', fullPath: stored.fullPath });
  });

  it('sends a large stream part by part with each checksum and the composite', async () => {
    const content = Buffer.from('abcdefghijklmnopqrstuvwxyz');
    const { answer, puts } = storage({ partSize: 10, size: content.length });
    const { client, sent } = stubClient(answer);
    const chunks = [content.subarray(0, 7), content.subarray(7, 19), content.subarray(19)];
    await client.storage.upload(Readable.from(chunks), {
      contentType: 'text/plain',
      size: content.length,
      multipartThresholdBytes: 8,
      partSize: 10,
      checksum: true,
    });
    expect(Buffer.concat([...puts.entries()].sort(([a], [b]) => a - b).map(([, b]) => b))).toEqual(content);
    const start = JSON.parse(sent[0]?.body ?? '');
    expect(start).toEqual({
      fileName: 'upload',
      contentType: 'text/plain',
      size: 26,
      partSize: 10,
      checksumAlgorithm: 'SHA256',
    });
    const parts = [content.subarray(0, 10), content.subarray(10, 20), content.subarray(20)];
    const digests = parts.map((p) => sha256(p));
    const completion = JSON.parse(sent.at(-1)?.body ?? '');
    expect(completion).toEqual({
      parts: parts.map((_, i) => ({
        partNumber: i + 1,
        etag: `"etag-${i + 1}"`,
        checksumSha256: digests[i]?.toString('base64'),
      })),
      checksumSha256: `${sha256(Buffer.concat(digests)).toString('base64')}-3`,
    });
    const partPut = sent.find((s) => s.path === '/part/2');
    expect(partPut?.headers.get('x-amz-checksum-sha256')).toBe(digests[1]?.toString('base64'));
  });

  it('aborts the multipart upload when a part is refused, and throws', async () => {
    const { answer } = storage({ partSize: 4, size: 10, failPart: 2 });
    const { client, sent } = stubClient(answer);
    const error = await client.storage
      .upload(new Uint8Array(10), {
        contentType: 'application/octet-stream',
        multipartThresholdBytes: 4,
        partSize: 4,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadTransferError);
    expect((error as UploadTransferError).status).toBe(403);
    expect(sent.at(-1)?.method).toBe('DELETE');
    expect(sent.at(-1)?.path).toBe('/v1/storage/multipart-uploads/mp_1');
  });
});
