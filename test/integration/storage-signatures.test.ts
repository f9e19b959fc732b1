import { request } from 'node:http';
import {
  PutObjectCommand,
  type PutObjectCommandInput,
  type PutObjectCommandOutput,
} from '@aws-sdk/client-s3';
import type { FinalizeRequestMiddleware } from '@smithy/types';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  binaryFile,
  complete,
  downloadUrl,
  put,
  reserve,
  type Tenant,
  type UploadAnswer,
  upload,
} from './storage-uploads';
import { createTenant } from './support';

/**
 * The local S3 verifies every signature as S3 does: one tenant's URL never opens another tenant's object,
 * whatever is done to its path or query. Every refusal is S3's XML error with status 403 (a body that does
 * not match its declared hash: 400).
 */
interface S3Answer {
  status: number;
  code: string | undefined;
  body: string;
}

const answerOf = async (response: Response): Promise<S3Answer> => {
  const body = await response.text();
  return { status: response.status, code: /<Code>([^<]+)<\/Code>/.exec(body)?.[1], body };
};

const send = async (url: string, init: RequestInit = {}) => answerOf(await fetch(url, init));

/** Sends the request target exactly as written (fetch would resolve `..` segments before sending). */
const sendRaw = (origin: string, target: string): Promise<S3Answer> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(origin);
    const out = request({ hostname, port, path: target, method: 'GET' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, code: /<Code>([^<]+)<\/Code>/.exec(body)?.[1], body });
      });
    });
    out.on('error', reject);
    out.end();
  });

const originOf = (url: string) => new URL(url).origin;
const queryOf = (url: string) => new URL(url).search;
const objectUrl = (signed: string, bucket: string, fullPath: string) =>
  `${originOf(signed)}/${bucket}/${fullPath}`;

const downloadLink = async (tenant: Tenant, fullPath: string): Promise<string> => {
  const res = await downloadUrl(tenant, { fullPath, expiresIn: '3600' });
  expect(res.status).toBe(200);
  return String(res.json.url);
};

describe('local S3: signatures bind a URL to its object', () => {
  let tenantA: Tenant;
  let tenantB: Tenant;
  let storedA: UploadAnswer;
  let storedB: UploadAnswer;
  let bytesA: Uint8Array;
  let urlA: string;
  let urlB: string;

  beforeAll(async () => {
    [tenantA, tenantB] = await Promise.all([createTenant(), createTenant()]);
    bytesA = binaryFile(2048);
    [storedA, storedB] = await Promise.all([upload(tenantA, bytesA), upload(tenantB, binaryFile(1024))]);
    [urlA, urlB] = await Promise.all([
      downloadLink(tenantA, storedA.fullPath),
      downloadLink(tenantB, storedB.fullPath),
    ]);
  });

  it('serves each genuine download URL its own object', async () => {
    const ownA = await fetch(urlA);
    expect(ownA.status).toBe(200);
    expect(Buffer.from(await ownA.arrayBuffer()).equals(Buffer.from(bytesA))).toBe(true);
    expect((await fetch(urlB)).status).toBe(200);
  });

  it("refuses tenant B's download query on tenant A's object path with SignatureDoesNotMatch", async () => {
    const borrowed = `${objectUrl(urlB, storedA.bucket, storedA.fullPath)}${queryOf(urlB)}`;
    const answer = await send(borrowed);
    expect(answer).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(answer.body).not.toContain(Buffer.from(bytesA.slice(300, 340)).toString('latin1'));
  });

  it("refuses tenant A's object path with no query at all with AccessDenied", async () => {
    expect(await send(objectUrl(urlA, storedA.bucket, storedA.fullPath))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it('refuses a tampered URL: signature flipped, expiry lengthened, parameter removed', async () => {
    const signature = new URL(urlA).searchParams.get('X-Amz-Signature') as string;
    const flipped = urlA.replace(
      signature,
      `${signature.slice(0, -1)}${signature.endsWith('a') ? 'b' : 'a'}`,
    );
    expect(await send(flipped)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await send(urlA.replace('X-Amz-Expires=3600', 'X-Amz-Expires=604800'))).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    const withoutId = new URL(urlA);
    withoutId.searchParams.delete('x-id');
    expect(await send(withoutId.toString())).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it("refuses a ../ path from tenant B's object to tenant A's, plain or encoded", async () => {
    const ownTarget = `/${storedB.bucket}/${storedB.fullPath}${queryOf(urlB)}`;
    expect((await sendRaw(originOf(urlB), ownTarget)).status).toBe(200);
    const climbs = [
      `/${storedB.bucket}/companies/${tenantB.companyId}/uploads/../../../${storedA.fullPath}`,
      `/${storedB.bucket}/companies/${tenantB.companyId}/uploads/%2e%2e/%2E%2E/%2e%2e/${storedA.fullPath}`,
      `/${storedB.bucket}/companies/${tenantB.companyId}/..%2F..%2F${storedA.fullPath}`,
      `/${storedB.bucket}/./${storedA.fullPath}`,
    ];
    for (const climb of climbs) {
      expect(await sendRaw(originOf(urlB), `${climb}${queryOf(urlB)}`), climb).toMatchObject({
        status: 403,
        code: 'AccessDenied',
      });
      expect(await sendRaw(originOf(urlB), climb), climb).toMatchObject({
        status: 403,
        code: 'AccessDenied',
      });
    }
  });

  it("refuses a listing of tenant A's prefix, or of the bucket, under tenant B's query", async () => {
    const bucketUrl = `${originOf(urlB)}/${storedA.bucket}`;
    const prefix = encodeURIComponent(`companies/${tenantA.companyId}/`);
    expect(await send(`${bucketUrl}${queryOf(urlB)}&list-type=2&prefix=${prefix}`)).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    expect(await send(`${bucketUrl}${queryOf(urlB)}`)).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    expect(await send(`${bucketUrl}?list-type=2&prefix=${prefix}`)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it("refuses URLs a tenant signs itself with s3rver's public built-in key, or with the key id its URL shows", async () => {
    const { GetObjectCommand, ListObjectsV2Command, S3Client } = await import('@aws-sdk/client-s3');
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    const shownKeyId = new URL(urlB).searchParams.get('X-Amz-Credential')?.split('/')[0] ?? '';
    for (const credentials of [
      { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      { accessKeyId: shownKeyId, secretAccessKey: 'S3RVER' },
      { accessKeyId: shownKeyId, secretAccessKey: shownKeyId },
    ]) {
      const client = new S3Client({
        region: 'us-east-1',
        endpoint: originOf(urlB),
        forcePathStyle: true,
        credentials,
      });
      const get = await getSignedUrl(
        client,
        new GetObjectCommand({ Bucket: storedA.bucket, Key: storedA.fullPath }),
      );
      const list = await getSignedUrl(
        client,
        new ListObjectsV2Command({ Bucket: storedA.bucket, Prefix: `companies/${tenantA.companyId}/` }),
      );
      for (const url of [get, list]) {
        const answer = await send(url);
        expect(answer.status, `${credentials.accessKeyId}: ${answer.code}`).toBe(403);
        expect(['InvalidAccessKeyId', 'SignatureDoesNotMatch']).toContain(answer.code);
      }
      client.destroy();
    }
  });

  it('refuses an expired download URL with AccessDenied "Request has expired"', async () => {
    const res = await downloadUrl(tenantA, { fullPath: storedA.fullPath, expiresIn: '1' });
    const url = String(res.json.url);
    expect((await fetch(url)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const answer = await send(url);
    expect(answer).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(answer.body).toContain('Request has expired');
  });
});

describe('local S3: upload URLs write only their own key', () => {
  const contentType = 'application/octet-stream';

  it("refuses tenant B's upload query on tenant A's pending upload, which A's own URL then fills", async () => {
    const [tenantA, tenantB] = await Promise.all([createTenant(), createTenant()]);
    const size = 64;
    const pendingA = await reserve(tenantA, { fileName: 'contract.bin', contentType, size });
    const ownB = await reserve(tenantB, { fileName: 'mine.bin', contentType, size });
    const hijack = `${objectUrl(ownB.uploadUrl, pendingA.bucket, pendingA.fullPath)}${queryOf(ownB.uploadUrl)}`;

    const answer = await send(hijack, { method: 'PUT', headers: ownB.headers, body: binaryFile(size) });
    expect(answer).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    expect((await complete(tenantA, { fullPath: pendingA.fullPath })).status).toBe(404);

    const bytes = binaryFile(size);
    expect((await put(pendingA, bytes)).status).toBe(200);
    expect((await complete(tenantA, { fullPath: pendingA.fullPath })).status).toBe(200);
    expect((await put(ownB, binaryFile(size))).status).toBe(200);
  });

  it("refuses an overwrite of tenant A's stored object with tenant B's upload query, and keeps A's bytes", async () => {
    const [tenantA, tenantB] = await Promise.all([createTenant(), createTenant()]);
    const bytesA = binaryFile(128);
    const storedA = await upload(tenantA, bytesA);
    const ownB = await reserve(tenantB, { fileName: 'mine.bin', contentType, size: 128 });
    const overwrite = `${objectUrl(ownB.uploadUrl, storedA.bucket, storedA.fullPath)}${queryOf(ownB.uploadUrl)}`;
    expect(
      await send(overwrite, { method: 'PUT', headers: ownB.headers, body: binaryFile(128) }),
    ).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    const unsigned = objectUrl(ownB.uploadUrl, storedA.bucket, storedA.fullPath);
    expect(
      await send(unsigned, { method: 'PUT', headers: ownB.headers, body: binaryFile(128) }),
    ).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    const stillA = await fetch(await downloadLink(tenantA, storedA.fullPath));
    expect(Buffer.from(await stillA.arrayBuffer()).equals(Buffer.from(bytesA))).toBe(true);
  });

  it("refuses a copy of tenant A's object through tenant B's upload URL (an unsigned x-amz-copy-source)", async () => {
    const [tenantA, tenantB] = await Promise.all([createTenant(), createTenant()]);
    const storedA = await upload(tenantA, binaryFile(256));
    const ownB = await reserve(tenantB, { fileName: 'copy.bin', contentType, size: 16 });
    const answer = await send(ownB.uploadUrl, {
      method: 'PUT',
      headers: { ...ownB.headers, 'x-amz-copy-source': `${storedA.bucket}/${storedA.fullPath}` },
      body: binaryFile(16),
    });
    expect(answer).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect((await complete(tenantB, { fullPath: ownB.fullPath })).status).toBe(404);
  });
});

describe("local S3: the platform's own signed requests", () => {
  it('refuses a body that differs from the hash its signature declares, and stores nothing', async () => {
    const { s3, headObject } = await import('../../functions/shared/aws/s3');
    const { env } = await import('../../functions/shared/env');
    const tenant = await createTenant();
    const key = `companies/${tenant.companyId}/outputs/hash-check/out.txt`;
    const command = new PutObjectCommand({ Bucket: env().bucketName, Key: key, Body: 'good-value' });
    // After signing, the body is swapped for another of the same length.
    const swapBody: FinalizeRequestMiddleware<PutObjectCommandInput, PutObjectCommandOutput> =
      (next) => async (args) => {
        (args.request as { body?: unknown }).body = 'evil-value';
        return next(args);
      };
    command.middlewareStack.addRelativeTo(swapBody, {
      relation: 'after',
      toMiddleware: 'httpSigningMiddleware',
      name: 'swapBodyAfterSigning',
    });
    await expect(s3().send(command)).rejects.toMatchObject({
      name: 'XAmzContentSHA256Mismatch',
      $metadata: { httpStatusCode: 400 },
    });
    expect(await headObject(env().bucketName, key)).toBeUndefined();
    await s3().send(new PutObjectCommand({ Bucket: env().bucketName, Key: key, Body: 'good-value' }));
    expect((await headObject(env().bucketName, key))?.size).toBe(10);
  });
});
