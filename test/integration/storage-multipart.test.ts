import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  auth,
  binaryFile,
  downloadUrl,
  type MultipartAnswer,
  type PartUrl,
  partBytes,
  partUrls,
  putPart,
  sha256,
  startMultipart,
  storageBytes,
  type Tenant,
  uploadAllParts,
} from './storage-uploads';
import { call, createTenant, expectProblem } from './support';

/**
 * Multipart uploads over HTTP against the local stack: parts sent through their presigned URLs, resumed,
 * completed into a stored object counted once, refused part lists, aborted uploads, the plan's largest file,
 * another company's id, and uploads with part checksums (refused bytes, the composite checksum).
 */
const MIB = 1024 ** 2;
const PART = 5 * MIB;

const getUpload = (tenant: Tenant, id: string) =>
  call('GET', `/v1/storage/multipart-uploads/${id}`, { headers: auth(tenant) });
type CompletedPart = { partNumber: number; etag: string; checksumSha256?: string };
const completeUpload = (tenant: Tenant, id: string, parts: CompletedPart[], checksumSha256?: string) =>
  call('POST', `/v1/storage/multipart-uploads/${id}/complete`, {
    headers: auth(tenant),
    body: { parts, ...(checksumSha256 === undefined ? {} : { checksumSha256 }) },
  });
const listFile = async (tenant: Tenant, fullPath: string) => {
  const listed = await call('GET', `/v1/storage/files?prefix=${encodeURIComponent(fullPath)}`, {
    headers: auth(tenant),
  });
  expect(listed.status).toBe(200);
  return listed.json.files;
};
/** S3's composite checksum, computed here apart from the code under test. */
const composite = (checksums: string[]) =>
  `${createHash('sha256')
    .update(Buffer.concat(checksums.map((c) => Buffer.from(c, 'base64'))))
    .digest('base64')}-${checksums.length}`;
const abortUpload = (tenant: Tenant, id: string) =>
  call('DELETE', `/v1/storage/multipart-uploads/${id}`, { headers: auth(tenant) });

describe('storage: multipart uploads', () => {
  it('uploads 3 × 5 MiB and a small last part, resumes, completes, lists, counts and downloads it', async () => {
    const tenant = await createTenant();
    const file = binaryFile(3 * PART + 123_457);
    const answer = await startMultipart(tenant, {
      fileName: 'lecture video.mp4',
      contentType: 'video/mp4',
      size: file.length,
      partSize: PART,
    });
    expect(answer).toMatchObject({
      size: file.length,
      contentType: 'video/mp4',
      partSize: PART,
      partCount: 4,
      receivedParts: [],
    });
    expect(answer.fullPath).toMatch(
      new RegExp(`^companies/${tenant.companyId}/uploads/[0-9a-z]{26}/lecture-video\\.mp4$`),
    );
    expect(answer.id).toBe(answer.fullPath.split('/').slice(-2).join('_'));
    expect(answer.parts.map((p) => [p.partNumber, p.size, p.method])).toEqual([
      [1, PART, 'PUT'],
      [2, PART, 'PUT'],
      [3, PART, 'PUT'],
      [4, 123_457, 'PUT'],
    ]);
    expect(Date.parse(answer.expiresAt) - Date.now()).toBeGreaterThan(86_000_000);
    const first = answer.parts[0] as MultipartAnswer['parts'][number];
    expect(new URL(first.url).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain(
      'content-length',
    );

    // Two parts sent, then the client resumes: the upload lists them and signs the two missing ones again.
    const etags = new Map<number, string>();
    for (const part of answer.parts.slice(0, 2))
      etags.set(part.partNumber, await putPart(answer, part, file));
    const resumed = await getUpload(tenant, answer.id);
    expect(resumed.status).toBe(200);
    const state = (resumed.json as unknown as { upload: MultipartAnswer }).upload;
    expect(state.receivedParts).toEqual([
      { partNumber: 1, etag: etags.get(1), size: PART },
      { partNumber: 2, etag: etags.get(2), size: PART },
    ]);
    expect(state.parts.map((p) => p.partNumber)).toEqual([3, 4]);
    for (const part of state.parts) etags.set(part.partNumber, await putPart(state, part, file));

    // A part of another length than the one signed is refused by storage.
    const wrongLength = await fetch(first.url, { method: 'PUT', body: file.subarray(0, PART - 1) });
    expect(wrongLength.status).toBe(403);

    const before = await storageBytes(tenant);
    const parts = [...etags].sort(([a], [b]) => a - b).map(([partNumber, etag]) => ({ partNumber, etag }));
    const done = await completeUpload(tenant, answer.id, parts);
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      bucket: answer.bucket,
      fullPath: answer.fullPath,
      size: file.length,
      contentType: 'video/mp4',
    });
    expect(await storageBytes(tenant)).toBe(before + file.length);

    // Completing again answers the same object and counts nothing; the upload is no longer open.
    const again = await completeUpload(tenant, answer.id, parts);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(done.json);
    expect(await storageBytes(tenant)).toBe(before + file.length);
    expectProblem(await getUpload(tenant, answer.id), 404, 'not_found');
    expectProblem(await abortUpload(tenant, answer.id), 404, 'not_found');

    expect(await listFile(tenant, answer.fullPath)).toEqual([
      expect.objectContaining({ fullPath: answer.fullPath, size: file.length, contentType: 'video/mp4' }),
    ]);

    const { headObject } = await import('../../functions/shared/aws/s3');
    expect((await headObject(answer.bucket, answer.fullPath))?.etag).toMatch(/^[0-9a-f]{32}-4$/);
    const link = await downloadUrl(tenant, { fullPath: answer.fullPath });
    expect(link.status).toBe(200);
    const downloaded = await fetch(String(link.json.url));
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(Buffer.from(file))).toBe(true);
  });

  it('refuses an incomplete, unordered or wrong part list with 400 multipart_parts_invalid', async () => {
    const tenant = await createTenant();
    const file = binaryFile(2 * PART + 10);
    const { answer, parts } = await uploadAllParts(tenant, file, PART);
    const [one, two, three] = parts as [(typeof parts)[0], (typeof parts)[0], (typeof parts)[0]];

    const missing = await completeUpload(tenant, answer.id, [one, two]);
    expectProblem(missing, 400, 'multipart_parts_invalid');
    expect(missing.json.errors).toEqual([{ pointer: '/body/parts', message: '3 parts expected, 2 given' }]);
    expectProblem(await completeUpload(tenant, answer.id, [two, one, three]), 400, 'multipart_parts_invalid');
    const wrongEtag = await completeUpload(tenant, answer.id, [one, { ...two, etag: '0'.repeat(32) }, three]);
    expectProblem(wrongEtag, 400, 'multipart_parts_invalid');
    expect(wrongEtag.json.storageCode).toBe('InvalidPart');

    // Nothing was recorded: the upload is still open, and completes with the right list.
    expect((await getUpload(tenant, answer.id)).status).toBe(200);
    expect((await completeUpload(tenant, answer.id, parts)).status).toBe(200);
  });

  it('refuses parts below 5 MiB but the last, as storage does', async () => {
    // partSize cannot be below 5 MiB through the API; the local S3 refuses small parts as S3 does.
    const tenant = await createTenant();
    const tooSmall = await call('POST', '/v1/storage/multipart-uploads', {
      headers: auth(tenant),
      body: { fileName: 'a.bin', contentType: 'application/octet-stream', size: 6 * MIB, partSize: MIB },
    });
    expectProblem(tooSmall, 400, 'validation_failed');
    const { startMultipartUpload, presignUploadPart, completeMultipart } = await import(
      '../../functions/shared/aws/s3-multipart'
    );
    const answer = await startMultipart(tenant, {
      fileName: 'a.bin',
      contentType: 'application/octet-stream',
      size: 10,
    });
    const uploadId = await startMultipartUpload(answer.bucket, `${answer.fullPath}.raw`, 'text/plain');
    const etags = [];
    for (const partNumber of [1, 2]) {
      const { url } = await presignUploadPart(
        answer.bucket,
        `${answer.fullPath}.raw`,
        { uploadId, partNumber, size: 5 },
        60,
      );
      const res = await fetch(url, { method: 'PUT', body: 'abcde' });
      etags.push({ partNumber, etag: String(res.headers.get('etag')) });
    }
    expect(await completeMultipart(answer.bucket, `${answer.fullPath}.raw`, uploadId, etags)).toMatchObject({
      refused: 'parts',
      code: 'EntityTooSmall',
    });
  });

  it('aborts an upload: its parts and its reservation go', async () => {
    const tenant = await createTenant();
    const file = binaryFile(PART + 1);
    const answer = await startMultipart(tenant, {
      fileName: 'x.bin',
      contentType: 'application/octet-stream',
      size: file.length,
      partSize: PART,
    });
    const etag = await putPart(answer, answer.parts[0] as MultipartAnswer['parts'][number], file);
    const aborted = await abortUpload(tenant, answer.id);
    expect(aborted.status).toBe(200);
    expect(aborted.json).toEqual({ deleted: true, id: answer.id, fullPath: answer.fullPath });
    expectProblem(await getUpload(tenant, answer.id), 404, 'not_found');
    expectProblem(await completeUpload(tenant, answer.id, [{ partNumber: 1, etag }]), 404, 'not_found');
    expectProblem(await abortUpload(tenant, answer.id), 404, 'not_found');
    const { listUploadedParts } = await import('../../functions/shared/aws/s3-multipart');
    expect(await listUploadedParts(answer.bucket, answer.fullPath, answer.uploadId)).toBeUndefined();
  });

  it("refuses a size over the plan's largest file with 413", async () => {
    const tenant = await createTenant({ limits: { maxObjectBytes: 12 * MIB } });
    const tooBig = await call('POST', '/v1/storage/multipart-uploads', {
      headers: auth(tenant),
      body: { fileName: 'big.bin', contentType: 'application/octet-stream', size: 12 * MIB + 1 },
    });
    expectProblem(tooBig, 413, 'payload_too_large');
    expect(tooBig.json.errors).toEqual([
      { pointer: '/body/size', message: `size must be at most ${12 * MIB}` },
    ]);
  });

  it("answers another company's upload id with 404 and leaves the upload alone", async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const file = binaryFile(100);
    const { answer, parts } = await uploadAllParts(owner, file);
    expectProblem(await getUpload(other, answer.id), 404, 'not_found');
    expectProblem(await completeUpload(other, answer.id, parts), 404, 'not_found');
    expectProblem(await abortUpload(other, answer.id), 404, 'not_found');
    expectProblem(await getUpload(owner, 'not-an-id'), 400, 'validation_failed');
    const done = await completeUpload(owner, answer.id, parts);
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ fullPath: answer.fullPath, size: 100 });
  });

  it('uploads 3 × 5 MiB parts with checksums: wrong bytes refused, the composite answered and listed', async () => {
    const tenant = await createTenant();
    const file = binaryFile(3 * PART);
    const answer = await startMultipart(tenant, {
      fileName: 'checked.bin',
      contentType: 'application/octet-stream',
      size: file.length,
      partSize: PART,
      checksumAlgorithm: 'SHA256',
    });
    expect(answer).toMatchObject({ partCount: 3, checksumAlgorithm: 'SHA256', receivedParts: [], parts: [] });
    const checksums = [1, 2, 3].map((n) => sha256(partBytes(file, PART, n)));

    // A part URL is signed only for a part of the upload, with its checksum.
    const unsigned = await partUrls(tenant, answer.id, [{ partNumber: 1 }]);
    expectProblem(unsigned, 400, 'validation_failed');
    expect(unsigned.json.errors).toEqual([
      {
        pointer: '/body/parts/0/checksumSha256',
        message: 'required: the upload was started with checksumAlgorithm SHA256',
      },
    ]);
    const past = await partUrls(tenant, answer.id, [
      { partNumber: 4, checksumSha256: checksums[0] as string },
    ]);
    expectProblem(past, 400, 'validation_failed');
    expect(past.json.errors).toEqual([
      { pointer: '/body/parts/0/partNumber', message: 'the upload has parts 1 to 3' },
    ]);
    const signed = await partUrls(
      tenant,
      answer.id,
      checksums.map((checksumSha256, i) => ({ partNumber: i + 1, checksumSha256 })),
    );
    expect(signed.status).toBe(200);
    const urls = signed.json.parts as PartUrl[];
    expect(urls.map((p) => [p.partNumber, p.size, p.headers['x-amz-checksum-sha256']])).toEqual([
      [1, PART, checksums[0]],
      [2, PART, checksums[1]],
      [3, PART, checksums[2]],
    ]);
    const [one, two, three] = urls as [PartUrl, PartUrl, PartUrl];
    expect(new URL(two.url).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain(
      'x-amz-checksum-sha256',
    );

    // Bytes other than the ones the part's checksum names: 400 BadDigest, and storage keeps nothing of them.
    const tampered = Uint8Array.from(partBytes(file, PART, 2));
    tampered[PART - 1] = (tampered[PART - 1] ?? 0) ^ 0xff;
    const refused = await fetch(two.url, { method: 'PUT', headers: two.headers, body: tampered });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('<Code>BadDigest</Code>');
    const etags = new Map<number, string>();
    for (const part of [one, three]) etags.set(part.partNumber, await putPart(answer, part, file));
    const resumed = ((await getUpload(tenant, answer.id)).json as unknown as { upload: MultipartAnswer })
      .upload;
    expect(resumed.receivedParts).toEqual([
      { partNumber: 1, etag: etags.get(1), size: PART, checksumSha256: checksums[0] },
      { partNumber: 3, etag: etags.get(3), size: PART, checksumSha256: checksums[2] },
    ]);
    expect(resumed.parts).toEqual([]);
    etags.set(2, await putPart(answer, two, file));

    const parts = [1, 2, 3].map((partNumber) => ({
      partNumber,
      etag: etags.get(partNumber) as string,
      checksumSha256: checksums[partNumber - 1] as string,
    }));
    // A part without its checksum, or with another part's, is a refused part list.
    const { checksumSha256: _, ...bare } = parts[1] as CompletedPart;
    const missing = await completeUpload(tenant, answer.id, [
      parts[0] as CompletedPart,
      bare,
      parts[2] as CompletedPart,
    ]);
    expectProblem(missing, 400, 'multipart_parts_invalid');
    expect(missing.json.errors).toEqual([
      {
        pointer: '/body/parts/1/checksumSha256',
        message: 'required: the upload was started with checksumAlgorithm SHA256',
      },
    ]);
    const swapped = parts.map((part) => ({ ...part, checksumSha256: checksums[0] as string }));
    const wrong = await completeUpload(tenant, answer.id, swapped);
    expectProblem(wrong, 400, 'multipart_parts_invalid');
    expect(wrong.json.storageCode).toBe('InvalidPart');
    // A composite checksum the parts do not make: refused before anything is assembled.
    const expected = composite(checksums);
    const other = composite([checksums[2], checksums[1], checksums[0]] as string[]);
    const mismatch = await completeUpload(tenant, answer.id, parts, other);
    expectProblem(mismatch, 400, 'multipart_checksum_mismatch');
    expect(mismatch.json).toMatchObject({ given: other, computed: expected });
    expect((await getUpload(tenant, answer.id)).status).toBe(200);

    const done = await completeUpload(tenant, answer.id, parts, expected);
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      bucket: answer.bucket,
      fullPath: answer.fullPath,
      size: file.length,
      contentType: 'application/octet-stream',
      checksumSha256: expected,
      checksumType: 'COMPOSITE',
    });
    expect(await listFile(tenant, answer.fullPath)).toEqual([
      expect.objectContaining({
        fullPath: answer.fullPath,
        checksumSha256: expected,
        checksumType: 'COMPOSITE',
      }),
    ]);
    const { headObject } = await import('../../functions/shared/aws/s3');
    expect((await headObject(answer.bucket, answer.fullPath))?.checksumSha256).toBe(expected);
    const link = await downloadUrl(tenant, { fullPath: answer.fullPath });
    const downloaded = await fetch(String(link.json.url));
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(Buffer.from(file))).toBe(true);
  });

  it('refuses checksums on an upload started without checksumAlgorithm, and signs its parts again', async () => {
    const tenant = await createTenant();
    const file = binaryFile(100);
    const { answer, parts } = await uploadAllParts(tenant, file);
    const checksumSha256 = sha256(file);
    const withChecksum = await partUrls(tenant, answer.id, [{ partNumber: 1, checksumSha256 }]);
    expectProblem(withChecksum, 400, 'validation_failed');
    expect(withChecksum.json.errors).toEqual([
      {
        pointer: '/body/parts/0/checksumSha256',
        message: 'not allowed: the upload was started without checksumAlgorithm',
      },
    ]);
    const again = await partUrls(tenant, answer.id, [{ partNumber: 1 }]);
    expect(again.status).toBe(200);
    expect(again.json.parts).toEqual([
      expect.objectContaining({ partNumber: 1, size: 100, headers: { 'Content-Length': '100' } }),
    ]);
    const partChecksum = await completeUpload(tenant, answer.id, [
      { ...(parts[0] as CompletedPart), checksumSha256 },
    ]);
    expectProblem(partChecksum, 400, 'multipart_parts_invalid');
    expectProblem(
      await completeUpload(tenant, answer.id, parts, composite([checksumSha256])),
      400,
      'validation_failed',
    );
    const done = await completeUpload(tenant, answer.id, parts);
    expect(done.status).toBe(200);
    expect(done.json).not.toHaveProperty('checksumSha256');
  });
});
