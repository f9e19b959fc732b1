import { beforeAll, describe, expect, it } from 'vitest';
import { hostileStorageReferences } from '../fixtures/hostile-storage-paths';
import {
  auth,
  binaryFile,
  complete,
  downloadUrl,
  put,
  reserve,
  storageBytes,
  type Tenant,
  type UploadAnswer,
  upload,
} from './storage-uploads';
import { call, createTenant, expectHostileRefusal, expectProblem } from './support';

/** Writes an object with the platform's own S3 client, bypassing the upload URL and what it binds. */
const putDirectly = async (answer: UploadAnswer, bytes: Uint8Array, contentType: string) => {
  const { putObject } = await import('../../functions/shared/aws/s3');
  await putObject(answer.bucket, answer.fullPath, bytes, contentType);
};

const objectHead = async (answer: UploadAnswer) => {
  const { headObject } = await import('../../functions/shared/aws/s3');
  return headObject(answer.bucket, answer.fullPath);
};

describe('storage: two-step upload and download', () => {
  it('uploads a binary file with the returned URL and headers and downloads it byte for byte', async () => {
    const tenant = await createTenant();
    const bytes = binaryFile(300_000);
    const answer = await reserve(tenant, {
      fileName: 'photo.png',
      contentType: 'image/png',
      size: bytes.length,
    });
    expect(answer.method).toBe('PUT');
    expect(answer.headers).toEqual({ 'Content-Type': 'image/png', 'Content-Length': String(bytes.length) });
    expect(answer.fullPath).toMatch(
      new RegExp(`^companies/${tenant.companyId}/uploads/[0-9a-z]{26}/photo\\.png$`),
    );
    expect(Date.parse(answer.expiresAt) - Date.now()).toBeGreaterThan(800_000);
    expect(Date.parse(answer.expiresAt) - Date.now()).toBeLessThanOrEqual(900_000);
    const signed = new URL(answer.uploadUrl);
    expect(signed.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(signed.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(
      expect.arrayContaining(['content-length', 'content-type', 'host']),
    );

    expect((await put(answer, bytes)).status).toBe(200);
    const done = await complete(tenant, { bucket: answer.bucket, fullPath: answer.fullPath });
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      bucket: answer.bucket,
      fullPath: answer.fullPath,
      size: bytes.length,
      contentType: 'image/png',
    });

    const link = await downloadUrl(tenant, { fullPath: answer.fullPath, expiresIn: '604800' });
    expect(link.status).toBe(200);
    const url = new URL(String(link.json.url));
    expect(url.searchParams.get('X-Amz-Expires')).toBe('604800');
    const expiresAt = Date.parse(String(link.json.expiresAt));
    expect(Math.abs(expiresAt - (Date.now() + 604_800_000))).toBeLessThan(60_000);
    const downloaded = await fetch(url);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  });

  it('counts the bytes once in the usage snapshot and answers a repeated complete the same', async () => {
    const tenant = await createTenant();
    const bytes = binaryFile(4096);
    const answer = await reserve(tenant, {
      fileName: 'a.bin',
      contentType: 'application/octet-stream',
      size: 4096,
    });
    await put(answer, bytes);
    const first = await complete(tenant, { fullPath: answer.fullPath });
    const second = await complete(tenant, { bucket: answer.bucket, fullPath: answer.fullPath });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(await storageBytes(tenant)).toBe(4096);
    await upload(tenant, binaryFile(1000));
    expect(await storageBytes(tenant)).toBe(5096);
  });

  it('refuses an upload whose size differs from the declared one, deletes it, and accepts a correct retry', async () => {
    const tenant = await createTenant();
    const answer = await reserve(tenant, {
      fileName: 'a.bin',
      contentType: 'application/octet-stream',
      size: 1000,
    });
    // S3 (the local one too) refuses a length other than the signed one; completion checks again, for an
    // object that reached the key some other way.
    const refused = await put(answer, binaryFile(1001), { 'Content-Type': 'application/octet-stream' });
    expect(refused.status).toBe(403);
    await putDirectly(answer, binaryFile(1001), 'application/octet-stream');
    const res = await complete(tenant, { fullPath: answer.fullPath });
    expectProblem(res, 400, 'upload_mismatch');
    expect(res.json.declared).toEqual({ size: 1000, contentType: 'application/octet-stream' });
    expect(res.json.received).toEqual({ size: 1001, contentType: 'application/octet-stream' });
    expect(res.json.errors).toEqual([
      { pointer: '/body/fullPath', message: 'uploaded 1001 bytes, declared 1000' },
    ]);
    expect(await objectHead(answer)).toBeUndefined();
    expect(await storageBytes(tenant)).toBe(0);
    expectProblem(await downloadUrl(tenant, { fullPath: answer.fullPath }), 404, 'not_found');

    const bytes = binaryFile(1000);
    expect((await put(answer, bytes)).status).toBe(200);
    const retried = await complete(tenant, { fullPath: answer.fullPath });
    expect(retried.status).toBe(200);
    expect(await storageBytes(tenant)).toBe(1000);
  });

  it('refuses an upload whose content type differs from the declared one', async () => {
    const tenant = await createTenant();
    const answer = await reserve(tenant, { fileName: 'a.png', contentType: 'image/png', size: 300 });
    expect((await put(answer, binaryFile(300), { 'Content-Type': 'text/html' })).status).toBe(403);
    await putDirectly(answer, binaryFile(300), 'text/html');
    const res = await complete(tenant, { fullPath: answer.fullPath });
    expectProblem(res, 400, 'upload_mismatch');
    expect(res.json.received).toEqual({ size: 300, contentType: 'text/html' });
    expect(await storageBytes(tenant)).toBe(0);
  });

  it('answers 404 to a complete before anything was uploaded, and records nothing', async () => {
    const tenant = await createTenant();
    const answer = await reserve(tenant, {
      fileName: 'a.bin',
      contentType: 'application/octet-stream',
      size: 10,
    });
    expectProblem(await complete(tenant, { fullPath: answer.fullPath }), 404, 'not_found');
    expectProblem(await downloadUrl(tenant, { fullPath: answer.fullPath }), 404, 'not_found');
    expect(await storageBytes(tenant)).toBe(0);
  });

  it('answers 404 to a complete of a well formed own path that was never reserved', async () => {
    const tenant = await createTenant();
    const fullPath = `companies/${tenant.companyId}/uploads/01abc/never.bin`;
    expectProblem(await complete(tenant, { fullPath }), 404, 'not_found');
  });

  it('sanitises the file name into the path', async () => {
    const tenant = await createTenant();
    const cases: [string, string][] = [
      ['../../etc/passwd', 'passwd'],
      ['C:\\Users\\me\\Résumé final (v2).pdf', 'Resume-final-v2-.pdf'],
      ['...', 'file'],
      ['<script>.html', 'script-.html'],
    ];
    for (const [fileName, expected] of cases) {
      const answer = await reserve(tenant, { fileName, contentType: 'application/pdf', size: 1 });
      expect(answer.fullPath.split('/').pop(), fileName).toBe(expected);
      expect(answer.fullPath.startsWith(`companies/${tenant.companyId}/uploads/`)).toBe(true);
    }
  });

  it('refuses a file larger than the plan allows with 413 and bad declarations with 400', async () => {
    const tenant = await createTenant({ plan: 'free' });
    const plan = (await call('GET', '/v1/usage', { headers: auth(tenant) })).json.usage as {
      plan: { limits: { maxObjectBytes: number } };
    };
    const max = plan.plan.limits.maxObjectBytes;
    const tooBig = await call('POST', '/v1/storage/upload-url', {
      headers: auth(tenant),
      body: { fileName: 'big.bin', contentType: 'application/octet-stream', size: max + 1 },
    });
    expectProblem(tooBig, 413, 'payload_too_large');
    expect(tooBig.json.errors).toEqual([{ pointer: '/body/size', message: `size must be at most ${max}` }]);
    expect(
      (
        await call('POST', '/v1/storage/upload-url', {
          headers: auth(tenant),
          body: { fileName: 'ok.bin', contentType: 'application/octet-stream', size: max },
        })
      ).status,
    ).toBe(200);
    const cases: [Record<string, unknown>, string][] = [
      [{ fileName: 'a', contentType: 'image/png' }, '/body/size'],
      [{ fileName: 'a', contentType: 'image/png', size: -1 }, '/body/size'],
      [{ fileName: 'a', contentType: 'image/png', size: 1.5 }, '/body/size'],
      [{ fileName: 'a', contentType: 'image/png', size: '10' }, '/body/size'],
      [{ fileName: 'a', contentType: 'image png', size: 1 }, '/body/contentType'],
      [{ fileName: 'a', contentType: 'text/html\r\nx-amz-acl: public-read', size: 1 }, '/body/contentType'],
      [{ fileName: 'a', contentType: 'image/png; a=b', size: 1 }, '/body/contentType'],
      [{ fileName: '', contentType: 'image/png', size: 1 }, '/body/fileName'],
      [{ fileName: 'a'.repeat(256), contentType: 'image/png', size: 1 }, '/body/fileName'],
      [{ fileName: 'a', contentType: 'image/png', size: 1, fullPath: 'companies/x/y' }, '/body/fullPath'],
    ];
    for (const [body, pointer] of cases) {
      const res = await call('POST', '/v1/storage/upload-url', { headers: auth(tenant), body });
      expectProblem(res, 400, 'validation_failed');
      expect(
        (res.json.errors as { pointer: string }[]).map((e) => e.pointer),
        JSON.stringify(body),
      ).toContain(pointer);
    }
  });

  it('refuses to complete an upload past the storage allowance and deletes the object', async () => {
    const tenant = await createTenant();
    const { setCompanyLimitOverrides } = await import('./storage-support');
    await setCompanyLimitOverrides(tenant.companyId, { storageBytes: 1500 });
    await upload(tenant, binaryFile(1000));
    const answer = await reserve(tenant, {
      fileName: 'b.bin',
      contentType: 'application/octet-stream',
      size: 600,
    });
    await put(answer, binaryFile(600));
    expectProblem(await complete(tenant, { fullPath: answer.fullPath }), 403, 'storage_limit_reached');
    expect(await objectHead(answer)).toBeUndefined();
    expect(await storageBytes(tenant)).toBe(1000);
  });

  it('answers 404 to a complete of an object nobody reserved, past the allowance, and keeps the object', async () => {
    const tenant = await createTenant();
    const { setCompanyLimitOverrides } = await import('./storage-support');
    await setCompanyLimitOverrides(tenant.companyId, { storageBytes: 100 });
    const { putObject, headObject } = await import('../../functions/shared/aws/s3');
    const bucket = process.env.BUCKET_NAME as string;
    const fullPath = `companies/${tenant.companyId}/transcodes/job/a1/output.bin`;
    await putObject(bucket, fullPath, binaryFile(500), 'application/octet-stream');
    expectProblem(await complete(tenant, { fullPath }), 404, 'not_found');
    expect((await headObject(bucket, fullPath))?.size).toBe(500);
    expect(await storageBytes(tenant)).toBe(0);
  });
});

describe('storage: download URL expiry bounds', () => {
  let tenant: Tenant;
  let fullPath: string;
  beforeAll(async () => {
    tenant = await createTenant();
    fullPath = (await upload(tenant, binaryFile(512))).fullPath;
  });

  it('defaults to one hour', async () => {
    const res = await downloadUrl(tenant, { fullPath });
    expect(res.status).toBe(200);
    expect(new URL(String(res.json.url)).searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(Math.abs(Date.parse(String(res.json.expiresAt)) - (Date.now() + 3_600_000))).toBeLessThan(60_000);
  });

  it.each(['1', '60', '604800'])('accepts expiresIn=%s', async (expiresIn) => {
    const res = await downloadUrl(tenant, { fullPath, expiresIn });
    expect(res.status).toBe(200);
    expect(new URL(String(res.json.url)).searchParams.get('X-Amz-Expires')).toBe(expiresIn);
  });

  it.each(['0', '604801', '-1', '1.5', 'abc', '', '1e3', '99999999'])(
    'refuses expiresIn=%j with 400 pointing at it',
    async (expiresIn) => {
      const res = await downloadUrl(tenant, { fullPath, expiresIn });
      expectProblem(res, 400, 'validation_failed');
      expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer)).toContain('/query/expiresIn');
    },
  );

  it('gives a URL that storage refuses once it has expired', async () => {
    const res = await downloadUrl(tenant, { fullPath, expiresIn: '1' });
    expect((await fetch(String(res.json.url))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await fetch(String(res.json.url))).status).toBe(403);
  });

  it('refuses a request without fullPath with 400', async () => {
    const res = await downloadUrl(tenant, {});
    expectProblem(res, 400, 'validation_failed');
    expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer)).toContain('/query/fullPath');
  });

  it('answers 404 for an own path that holds no object', async () => {
    expectProblem(
      await downloadUrl(tenant, { fullPath: `companies/${tenant.companyId}/uploads/x/missing.bin` }),
      404,
      'not_found',
    );
  });
});

describe('storage: tenant isolation', () => {
  it("answers 404 to another tenant's download and complete attempts, exactly like a missing object", async () => {
    const owner = await createTenant();
    const intruder = await createTenant();
    const stored = await upload(owner, binaryFile(700));
    const reserved = await reserve(owner, {
      fileName: 'r.bin',
      contentType: 'application/octet-stream',
      size: 5,
    });
    await put(reserved, binaryFile(5));

    const foreignDownload = await downloadUrl(intruder, { fullPath: stored.fullPath });
    const missingDownload = await downloadUrl(intruder, {
      fullPath: `companies/${intruder.companyId}/uploads/x/none.bin`,
    });
    expectProblem(foreignDownload, 404, 'not_found');
    expectProblem(missingDownload, 404, 'not_found');
    expect(foreignDownload.json.detail).toBe(missingDownload.json.detail);
    expectProblem(await complete(intruder, { fullPath: stored.fullPath }), 404, 'not_found');
    expectProblem(await complete(intruder, { fullPath: reserved.fullPath }), 404, 'not_found');

    expect(await storageBytes(intruder)).toBe(0);
    expect(await storageBytes(owner)).toBe(700);
    expect((await complete(owner, { fullPath: reserved.fullPath })).status).toBe(200);
    expect(await storageBytes(owner)).toBe(705);
  });
});

describe('storage: hostile references', () => {
  let tenant: Tenant;
  let other: Tenant;
  let bucket: string;
  let ownPath: string;
  beforeAll(async () => {
    tenant = await createTenant();
    other = await createTenant();
    const stored = await upload(tenant, binaryFile(300));
    bucket = stored.bucket;
    ownPath = stored.fullPath;
    await upload(other, binaryFile(300));
  });

  it('has a corpus of at least 30 hostile references', () => {
    expect(hostileStorageReferences('a', 'b', 'c').length).toBeGreaterThanOrEqual(30);
  });

  it('accepts the own stored reference on both routes (the corpus below is refused, not everything)', async () => {
    expect((await downloadUrl(tenant, { bucket, fullPath: ownPath })).status).toBe(200);
    expect((await complete(tenant, { bucket, fullPath: ownPath })).status).toBe(200);
  });

  it('refuses every hostile reference on upload-complete', async () => {
    for (const hostile of hostileStorageReferences(tenant.companyId, other.companyId, bucket)) {
      expectHostileRefusal(await complete(tenant, hostile.reference), hostile, 'body');
    }
    expect(await storageBytes(tenant)).toBe(300);
  });

  it('refuses every hostile reference on the download URL route', async () => {
    for (const hostile of hostileStorageReferences(tenant.companyId, other.companyId, bucket)) {
      const query: Record<string, string> = { fullPath: hostile.reference.fullPath };
      if (hostile.reference.bucket !== undefined) query.bucket = hostile.reference.bucket;
      const res = await downloadUrl(tenant, query);
      expectHostileRefusal(res, hostile, 'query');
      expect(JSON.stringify(res.json), hostile.name).not.toContain('X-Amz');
    }
  });
});

describe('storage: bucket CORS for browser uploads', () => {
  it('answers a browser preflight for a presigned PUT from any origin', async () => {
    const tenant = await createTenant();
    const answer = await reserve(tenant, { fileName: 'a.txt', contentType: 'text/plain', size: 3 });
    const preflight = await fetch(answer.uploadUrl, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example.com',
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
  });
});

describe('storage: objects the platform writes itself (worker outputs)', () => {
  it('records an object once, counts its bytes once, and serves it like an upload', async () => {
    const tenant = await createTenant();
    const { putObject } = await import('../../functions/shared/aws/s3');
    const { recordStoredObject } = await import('../../functions/shared/data/stored-objects');
    const { resolveStoredObject } = await import('../../functions/shared/domain/storage-references');
    const { env } = await import('../../functions/shared/env');
    const bucket = env().bucketName;
    const fullPath = `companies/${tenant.companyId}/outputs/job-1/out.txt`;
    const { etag } = await putObject(bucket, fullPath, 'converted', 'text/plain');
    const object = {
      bucket,
      fullPath,
      size: 9,
      contentType: 'text/plain',
      etag,
      createdAt: new Date().toISOString(),
    };

    const first = await recordStoredObject(tenant.companyId, object, new Date());
    const again = await recordStoredObject(tenant.companyId, { ...object, size: 999 }, new Date());
    expect(first).toEqual({ object, created: true });
    expect(again).toEqual({ object, created: false });
    expect(await storageBytes(tenant)).toBe(9);
    expect(await resolveStoredObject(tenant.companyId, { fullPath })).toEqual(object);
    await expect(resolveStoredObject('co_someone_else', { fullPath })).rejects.toMatchObject({ status: 404 });

    const link = await downloadUrl(tenant, { fullPath });
    expect(await (await fetch(String(link.json.url))).text()).toBe('converted');
  });
});

describe('storage: parallel uploads of one company', () => {
  it('completes ten uploads at once and counts every byte exactly once', async () => {
    const tenant = await createTenant();
    const sizes = Array.from({ length: 10 }, (_, i) => 100 + i);
    const answers = await Promise.all(
      sizes.map((size) =>
        reserve(tenant, { fileName: `f${size}.bin`, contentType: 'application/octet-stream', size }),
      ),
    );
    await Promise.all(answers.map((answer, i) => put(answer, binaryFile(sizes[i] ?? 0))));
    const results = await Promise.all(
      answers.map((answer) => complete(tenant, { fullPath: answer.fullPath })),
    );
    expect(results.map((r) => r.status)).toEqual(sizes.map(() => 200));
    expect(await storageBytes(tenant)).toBe(sizes.reduce((a, b) => a + b, 0));
  });
});
