import { describe, expect, it } from 'vitest';
import {
  auth,
  binaryFile,
  complete,
  put,
  reserve,
  sha256,
  storageBytes,
  type Tenant,
  upload,
} from './storage-uploads';
import { call, createTenant, expectProblem } from './support';

/** The file list and deletion (`GET`/`DELETE /v1/storage/files`) and checksummed uploads, over HTTP. */
const listFiles = (tenant: Tenant, query: Record<string, string> = {}) =>
  call('GET', `/v1/storage/files?${new URLSearchParams(query)}`, { headers: auth(tenant) });

const deleteFile = (tenant: Tenant, query: Record<string, string>) =>
  call('DELETE', `/v1/storage/files?${new URLSearchParams(query)}`, { headers: auth(tenant) });

type Listed = { fullPath: string; size: number; contentType: string; createdAt: string; bucket: string };

/**
 * Puts an unfinished transcode of `tenant` reading `fullPath` in place, as the job engine records one (`work`),
 * or as it did before the `work` index (`gsi1`, `docs/decisions/0040-keys-only-work-index.md`).
 */
const seedUnfinishedTranscode = async (
  companyId: string,
  fullPath: string,
  bucket: string,
  marker: 'work' | 'gsi1',
) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { indexPartitions, partitions, sortKeys, unfinishedSortKey } = await import(
    '../../functions/shared/data/keys'
  );
  const { sparseIndexKey } = await import('../../functions/shared/data/sparse-index');
  const jobId = `tc_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const index = sparseIndexKey(indexPartitions.unfinishedTranscodes(), unfinishedSortKey(companyId, jobId));
  const { PutCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const key = { pk: partitions.transcodes(companyId), sk: sortKeys.job(jobId) };
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...key,
        ...(marker === 'work' ? index : { gsi1pk: index.workpk, gsi1sk: index.worksk }),
        jobId,
        status: 'processing',
        source: { bucket, fullPath, size: 1, etag: 'e' },
      },
    }),
  );
  return {
    jobId,
    /** The job leaves the unfinished index, as its final move does. */
    finish: () =>
      ddb.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'REMOVE workpk, worksk, gsi1pk, gsi1sk SET #s = :done',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':done': 'done' },
        }),
      ),
  };
};

describe('storage: file list', () => {
  it('lists the stored files under a prefix in path order, a page at a time', async () => {
    const tenant = await createTenant();
    const uploaded = [];
    for (let i = 0; i < 3; i++) uploaded.push(await upload(tenant, binaryFile(100 + i), 'text/plain'));
    // A reservation never uploaded is not a file.
    await reserve(tenant, { fileName: 'pending.txt', contentType: 'text/plain', size: 5 });

    const all = await listFiles(tenant);
    expect(all.status).toBe(200);
    const files = all.json.files as Listed[];
    expect(files.map((f) => f.fullPath)).toEqual(uploaded.map((u) => u.fullPath).sort());
    expect(files[0]).toEqual({
      bucket: uploaded[0]?.bucket,
      fullPath: uploaded[0]?.fullPath,
      size: 100,
      contentType: 'text/plain',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(all.json.nextCursor).toBeNull();

    const first = await listFiles(tenant, { limit: '2' });
    expect((first.json.files as Listed[]).map((f) => f.fullPath)).toEqual(
      files.slice(0, 2).map((f) => f.fullPath),
    );
    expect(typeof first.json.nextCursor).toBe('string');
    const second = await listFiles(tenant, { limit: '2', cursor: String(first.json.nextCursor) });
    expect((second.json.files as Listed[]).map((f) => f.fullPath)).toEqual([files[2]?.fullPath]);
    expect(second.json.nextCursor).toBeNull();

    const one = uploaded[1]?.fullPath as string;
    const byPrefix = await listFiles(tenant, { prefix: one.slice(0, one.lastIndexOf('/') + 1) });
    expect((byPrefix.json.files as Listed[]).map((f) => f.fullPath)).toEqual([one]);
    const uploads = await listFiles(tenant, { prefix: `companies/${tenant.companyId}/uploads/` });
    expect((uploads.json.files as Listed[]).length).toBe(3);
    const nothing = await listFiles(tenant, { prefix: `companies/${tenant.companyId}/speech/` });
    expect(nothing.json).toEqual({ files: [], nextCursor: null });
  });

  it("answers another company's prefix 404 and never lists its files", async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const answer = await upload(owner, binaryFile(64));
    expectProblem(await listFiles(other, { prefix: `companies/${owner.companyId}/` }), 404, 'not_found');
    expectProblem(await listFiles(other, { prefix: answer.fullPath }), 404, 'not_found');
    expect((await listFiles(other)).json).toEqual({ files: [], nextCursor: null });
  });

  it('refuses a cursor that is not one of the list, and a malformed prefix', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    await upload(tenant, binaryFile(10));
    expectProblem(
      await listFiles(tenant, { cursor: `companies/${other.companyId}/uploads/x/y` }),
      400,
      'validation_failed',
    );
    expectProblem(
      await listFiles(tenant, { prefix: `companies/${tenant.companyId}/../x` }),
      400,
      'invalid_storage_reference',
    );
  });
});

describe('storage: file deletion', () => {
  it('deletes the object and its record and lowers storageBytes once; a repeated delete is 404', async () => {
    const tenant = await createTenant();
    const keep = await upload(tenant, binaryFile(1000));
    const gone = await upload(tenant, binaryFile(4000));
    expect(await storageBytes(tenant)).toBe(5000);

    const res = await deleteFile(tenant, { fullPath: gone.fullPath });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ deleted: true, bucket: gone.bucket, fullPath: gone.fullPath });
    expect(await storageBytes(tenant)).toBe(1000);
    expect((await listFiles(tenant)).json.files).toEqual([
      expect.objectContaining({ fullPath: keep.fullPath }),
    ]);
    const { headObject } = await import('../../functions/shared/aws/s3');
    expect(await headObject(gone.bucket, gone.fullPath)).toBeUndefined();
    expectProblem(
      await call('GET', `/v1/storage/url?${new URLSearchParams({ fullPath: gone.fullPath })}`, {
        headers: auth(tenant),
      }),
      404,
      'not_found',
    );

    expectProblem(await deleteFile(tenant, { fullPath: gone.fullPath }), 404, 'not_found');
    expect(await storageBytes(tenant)).toBe(1000);
  });

  it('subtracts the bytes once when the same file is deleted by racing requests', async () => {
    const tenant = await createTenant();
    await upload(tenant, binaryFile(700));
    const target = await upload(tenant, binaryFile(300));
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => deleteFile(tenant, { fullPath: target.fullPath })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404, 404]);
    expect(await storageBytes(tenant)).toBe(700);
  });

  it("answers another company's file 404 and leaves it stored and counted", async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const answer = await upload(owner, binaryFile(256));
    expectProblem(await deleteFile(other, { fullPath: answer.fullPath }), 404, 'not_found');
    expect(await storageBytes(owner)).toBe(256);
    expect((await listFiles(owner)).json.files).toHaveLength(1);
  });

  it.each(['work', 'gsi1'] as const)(
    'refuses a file an unfinished job (marked in %s) reads with 409 file_in_use, and deletes it once the job ended',
    async (marker) => {
      const tenant = await createTenant();
      const answer = await upload(tenant, binaryFile(512));
      const job = await seedUnfinishedTranscode(tenant.companyId, answer.fullPath, answer.bucket, marker);
      const refused = await deleteFile(tenant, { fullPath: answer.fullPath });
      expectProblem(refused, 409, 'file_in_use');
      expect(refused.json.jobIds).toEqual([job.jobId]);
      expect(await storageBytes(tenant)).toBe(512);

      await job.finish();
      expect((await deleteFile(tenant, { fullPath: answer.fullPath })).status).toBe(200);
      expect(await storageBytes(tenant)).toBe(0);
    },
  );

  it('refuses a reservation that was never completed with 404', async () => {
    const tenant = await createTenant();
    const answer = await reserve(tenant, { fileName: 'x.txt', contentType: 'text/plain', size: 3 });
    expectProblem(await deleteFile(tenant, { fullPath: answer.fullPath }), 404, 'not_found');
  });
});

describe('storage: checksummed uploads', () => {
  it('signs the URL for the checksum, stores the file and answers the checksum on completion and in lists', async () => {
    const tenant = await createTenant();
    const bytes = binaryFile(2048);
    const checksumSha256 = sha256(bytes);
    const answer = await reserve(tenant, {
      fileName: 'sum.bin',
      contentType: 'application/octet-stream',
      size: bytes.length,
      checksumSha256,
    });
    expect(answer.headers['x-amz-checksum-sha256']).toBe(checksumSha256);
    expect(new URL(answer.uploadUrl).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain(
      'x-amz-checksum-sha256',
    );
    expect((await put(answer, bytes)).status).toBe(200);
    const done = await complete(tenant, { fullPath: answer.fullPath });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ checksumSha256, checksumType: 'FULL_OBJECT' });
    const listed = (await listFiles(tenant)).json.files as Listed[];
    expect(listed[0]).toMatchObject({ checksumSha256, checksumType: 'FULL_OBJECT' });
  });

  it('refuses content whose SHA-256 is not the declared one with 400 BadDigest, storing nothing', async () => {
    const tenant = await createTenant();
    const bytes = binaryFile(1024);
    const answer = await reserve(tenant, {
      fileName: 'sum.bin',
      contentType: 'application/octet-stream',
      size: bytes.length,
      checksumSha256: sha256(bytes),
    });
    const tampered = Uint8Array.from(bytes);
    tampered[500] = (tampered[500] ?? 0) ^ 0xff;
    const refused = await put(answer, tampered);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('<Code>BadDigest</Code>');
    expectProblem(await complete(tenant, { fullPath: answer.fullPath }), 404, 'not_found');

    // Without the signed checksum header the signature no longer matches.
    const { 'x-amz-checksum-sha256': _dropped, ...unsigned } = answer.headers;
    expect((await put(answer, bytes, unsigned)).status).toBe(403);
    expect((await put(answer, bytes)).status).toBe(200);
    expect((await complete(tenant, { fullPath: answer.fullPath })).status).toBe(200);
  });

  it('refuses a checksum that is not the base64 of a SHA-256 digest', async () => {
    const tenant = await createTenant();
    const res = await call('POST', '/v1/storage/upload-url', {
      headers: auth(tenant),
      body: { fileName: 'a.bin', contentType: 'application/octet-stream', size: 3, checksumSha256: 'abc' },
    });
    expectProblem(res, 400, 'validation_failed');
  });
});
