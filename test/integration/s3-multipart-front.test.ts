import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Local } from '../../functions/local/s3-local';

/**
 * The local S3's multipart upload (`functions/local/s3-multipart.ts`) driven by the AWS SDK, as S3 answers it:
 * parts listed a page at a time, part lists checked (order, ETags, the 5 MiB minimum), the assembled
 * object's ETag, unknown and foreign upload ids, abort, part URLs whose signature is checked, and SHA-256
 * checksums (per part, and the object's composite).
 */
const BUCKET = 'multipart-front';
const KEY = 'companies/co_1/uploads/01/big.bin';
const MIB = 1024 ** 2;
let dataDir: string;
let s3: Awaited<ReturnType<typeof startS3Local>>;
let client: S3Client;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 's3-multipart-'));
  const credentials = {
    accessKeyId: 'MULTIPARTTEST',
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
  s3 = await startS3Local(join(dataDir, 's3'), 'us-east-1', credentials);
  client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
});
afterAll(async () => {
  await s3?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = async (key = KEY) => {
  const out = await client.send(
    new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key, ContentType: 'video/mp4' }),
  );
  return String(out.UploadId);
};
const sendPart = async (uploadId: string, partNumber: number, body: Uint8Array, key = KEY) => {
  const out = await client.send(
    new UploadPartCommand({
      Bucket: BUCKET,
      Key: key,
      UploadId: uploadId,
      PartNumber: partNumber,
      Body: body,
    }),
  );
  return { PartNumber: partNumber, ETag: String(out.ETag) };
};
const complete = (uploadId: string, parts: { PartNumber: number; ETag: string }[], key = KEY) =>
  client.send(
    new CompleteMultipartUploadCommand({
      Bucket: BUCKET,
      Key: key,
      UploadId: uploadId,
      MultipartUpload: { Parts: parts },
    }),
  );
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: Error) => error.name,
  );
const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest();

describe('local S3 multipart uploads', () => {
  it('assembles the parts into the object with S3’s multipart ETag and lists parts a page at a time', async () => {
    const uploadId = await start();
    const chunks = [randomBytes(5 * MIB), randomBytes(5 * MIB), randomBytes(1000)];
    // Sent out of order; a part sent again replaces the first.
    const third = await sendPart(uploadId, 3, chunks[2] as Uint8Array);
    await sendPart(uploadId, 1, randomBytes(10));
    const first = await sendPart(uploadId, 1, chunks[0] as Uint8Array);
    const second = await sendPart(uploadId, 2, chunks[1] as Uint8Array);
    expect(first.ETag).toBe(`"${md5(chunks[0] as Uint8Array).toString('hex')}"`);

    const page = await client.send(
      new ListPartsCommand({ Bucket: BUCKET, Key: KEY, UploadId: uploadId, MaxParts: 2 }),
    );
    expect(page.Parts?.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([
      [1, first.ETag, 5 * MIB],
      [2, second.ETag, 5 * MIB],
    ]);
    expect(page.IsTruncated).toBe(true);
    const rest = await client.send(
      new ListPartsCommand({
        Bucket: BUCKET,
        Key: KEY,
        UploadId: uploadId,
        PartNumberMarker: page.NextPartNumberMarker,
      }),
    );
    expect(rest.Parts?.map((p) => p.PartNumber)).toEqual([3]);
    expect(rest.IsTruncated).toBe(false);

    const done = await complete(uploadId, [first, second, third]);
    const etag = `"${createHash('md5')
      .update(Buffer.concat(chunks.map(md5)))
      .digest('hex')}-3"`;
    expect(done.ETag).toBe(etag);
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: KEY }));
    expect(head).toMatchObject({ ETag: etag, ContentLength: 10 * MIB + 1000, ContentType: 'video/mp4' });
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: KEY }));
    expect(
      Buffer.from(
        await (object.Body as { transformToByteArray: () => Promise<Uint8Array> }).transformToByteArray(),
      ).equals(Buffer.concat(chunks)),
    ).toBe(true);
    // The upload is over.
    expect(
      await refusal(client.send(new ListPartsCommand({ Bucket: BUCKET, Key: KEY, UploadId: uploadId }))),
    ).toBe('NoSuchUpload');
  });

  it('refuses part lists S3 refuses, and keeps the upload open', async () => {
    const uploadId = await start('companies/co_1/uploads/02/x.bin');
    const key = 'companies/co_1/uploads/02/x.bin';
    const one = await sendPart(uploadId, 1, randomBytes(5 * MIB), key);
    const two = await sendPart(uploadId, 2, randomBytes(10), key);
    const three = await sendPart(uploadId, 3, randomBytes(10), key);
    expect(await refusal(complete(uploadId, [two, one], key))).toBe('InvalidPartOrder');
    expect(await refusal(complete(uploadId, [one, { ...two, ETag: `"${'0'.repeat(32)}"` }], key))).toBe(
      'InvalidPart',
    );
    expect(await refusal(complete(uploadId, [one, { PartNumber: 4, ETag: two.ETag }], key))).toBe(
      'InvalidPart',
    );
    expect(await refusal(complete(uploadId, [one, two, three], key))).toBe('EntityTooSmall');
    expect(await refusal(complete(uploadId, [one, two], key))).toBe('accepted');
  });

  it('answers NoSuchUpload for an unknown id or another key, and aborts', async () => {
    const uploadId = await start('companies/co_1/uploads/03/y.bin');
    expect(await refusal(sendPart(uploadId, 1, randomBytes(10)))).toBe('NoSuchUpload');
    expect(
      await refusal(sendPart('0'.repeat(32), 1, randomBytes(10), 'companies/co_1/uploads/03/y.bin')),
    ).toBe('NoSuchUpload');
    expect(
      await refusal(sendPart(uploadId, 10_001, randomBytes(10), 'companies/co_1/uploads/03/y.bin')),
    ).toBe('InvalidArgument');
    await client.send(
      new AbortMultipartUploadCommand({
        Bucket: BUCKET,
        Key: 'companies/co_1/uploads/03/y.bin',
        UploadId: uploadId,
      }),
    );
    expect(
      await refusal(
        client.send(
          new AbortMultipartUploadCommand({
            Bucket: BUCKET,
            Key: 'companies/co_1/uploads/03/y.bin',
            UploadId: uploadId,
          }),
        ),
      ),
    ).toBe('NoSuchUpload');
  });

  it('checks a presigned part URL’s signature: another part number or length is refused', async () => {
    const key = 'companies/co_1/uploads/04/z.bin';
    const uploadId = await start(key);
    const url = await getSignedUrl(
      client,
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: uploadId,
        PartNumber: 1,
        ContentLength: 4,
      }),
      { expiresIn: 60, signableHeaders: new Set(['content-length']) },
    );
    expect((await fetch(url, { method: 'PUT', body: 'abcd' })).status).toBe(200);
    expect((await fetch(url, { method: 'PUT', body: 'abcde' })).status).toBe(403);
    expect(
      (await fetch(url.replace('partNumber=1', 'partNumber=2'), { method: 'PUT', body: 'abcd' })).status,
    ).toBe(403);
    const parts = await client.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }));
    expect(parts.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([[1, 4]]);
  });

  it('keeps SHA-256 part checksums and gives the object their composite, refusing what S3 refuses', async () => {
    const key = 'companies/co_1/uploads/05/sum.bin';
    const created = await client.send(
      new CreateMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        ContentType: 'application/octet-stream',
        ChecksumAlgorithm: 'SHA256',
      }),
    );
    const uploadId = String(created.UploadId);
    const chunks = [randomBytes(5 * MIB), randomBytes(1000)];
    const sums = chunks.map((chunk) => createHash('sha256').update(chunk).digest('base64'));
    const put = (partNumber: number, checksum?: string) =>
      client.send(
        new UploadPartCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId: uploadId,
          PartNumber: partNumber,
          Body: chunks[partNumber - 1],
          ...(checksum === undefined ? {} : { ChecksumSHA256: checksum }),
        }),
      );
    // A part without its SHA-256, or with another part's: refused, nothing kept.
    expect(await refusal(put(1))).toBe('InvalidRequest');
    expect(await refusal(put(1, sums[1]))).toBe('BadDigest');
    const parts = [];
    for (const partNumber of [1, 2]) {
      const out = await put(partNumber, sums[partNumber - 1]);
      expect(out.ChecksumSHA256).toBe(sums[partNumber - 1]);
      parts.push({ PartNumber: partNumber, ETag: String(out.ETag), ChecksumSHA256: sums[partNumber - 1] });
    }
    const listed = await client.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }));
    expect(listed.Parts?.map((p) => [p.PartNumber, p.ChecksumSHA256])).toEqual([
      [1, sums[0]],
      [2, sums[1]],
    ]);
    const completeWith = (list: { PartNumber: number; ETag: string; ChecksumSHA256?: string }[]) =>
      client.send(
        new CompleteMultipartUploadCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: list },
        }),
      );
    const [one, two] = parts as [(typeof parts)[0], (typeof parts)[0]];
    expect(await refusal(completeWith([one, { PartNumber: 2, ETag: two.ETag }]))).toBe('InvalidRequest');
    expect(await refusal(completeWith([one, { ...two, ChecksumSHA256: sums[0] }]))).toBe('InvalidPart');

    const composite = `${createHash('sha256')
      .update(Buffer.concat(sums.map((sum) => Buffer.from(sum as string, 'base64'))))
      .digest('base64')}-2`;
    const done = await completeWith(parts);
    expect(done).toMatchObject({ ChecksumSHA256: composite, ChecksumType: 'COMPOSITE' });
    const head = await client.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: 'ENABLED' }),
    );
    expect(head).toMatchObject({
      ChecksumSHA256: composite,
      ChecksumType: 'COMPOSITE',
      ContentLength: 5 * MIB + 1000,
    });
  });

  it('refuses a SHA-256 part checksum on an upload started without the algorithm', async () => {
    const key = 'companies/co_1/uploads/06/plain.bin';
    const uploadId = await start(key);
    const body = randomBytes(100);
    const out = client.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: uploadId,
        PartNumber: 1,
        Body: body,
        ChecksumSHA256: createHash('sha256').update(body).digest('base64'),
      }),
    );
    expect(await refusal(out)).toBe('InvalidRequest');
  });
});
