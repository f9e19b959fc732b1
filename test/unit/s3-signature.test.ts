import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import {
  type S3Request,
  S3RequestRefused,
  type VerifiedRequest,
  verifyS3Request,
} from '../../functions/local/s3-signature';

/**
 * The local S3's signature verifier against the AWS SDK's own signers as the independent reference: URLs from
 * `@aws-sdk/s3-request-presigner` and requests signed by `@smithy/signature-v4` must verify, and every
 * alteration a tenant could try must be refused with S3's code. No network: nothing is sent.
 */
const ENDPOINT = 'http://127.0.0.1:4569';
const HOST = '127.0.0.1:4569';
const REGION = 'us-east-1';
const BUCKET = 'public-api-v1-files';
const SIGNED_AT = new Date('2026-03-01T12:00:00Z');
const KEYS: Record<string, string> = { S3RVER: 'S3RVER', AKIASIGNER: 'signer-secret' };
const A_OBJECT = 'companies/co_A/uploads/01J0000000000000000000000A/report (final)+v2.pdf';
const B_OBJECT = 'companies/co_B/uploads/01J0000000000000000000000B/photo.png';

const verify = (request: S3Request, now = SIGNED_AT): VerifiedRequest =>
  verifyS3Request(request, { region: REGION, secretFor: (id) => KEYS[id], now });

const refusal = (request: S3Request, now = SIGNED_AT): { status: number; code: string; message: string } => {
  try {
    verify(request, now);
  } catch (error) {
    if (error instanceof S3RequestRefused)
      return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the request was accepted');
};

const client = (accessKeyId = 'S3RVER', secretAccessKey = KEYS[accessKeyId] as string) =>
  new S3Client({
    region: REGION,
    endpoint: ENDPOINT,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });

const presignGet = (key: string, expiresIn = 3600, signer = client()) =>
  getSignedUrl(signer, new GetObjectCommand({ Bucket: BUCKET, Key: key }), {
    expiresIn,
    signingDate: SIGNED_AT,
  });

const presignPut = (key: string) =>
  getSignedUrl(
    client(),
    new PutObjectCommand({ Bucket: BUCKET, Key: key, ContentType: 'image/png', ContentLength: 5120 }),
    { expiresIn: 900, signingDate: SIGNED_AT, signableHeaders: new Set(['content-type', 'content-length']) },
  );

/** The request a client sends for a URL: its raw path and query, and the Host header. */
const requestFor = (url: string, method = 'GET', headers: Record<string, string> = {}): S3Request => {
  const target = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  return { method, url: target, headers: { host: HOST, ...headers } };
};

const pathOf = (url: string) => url.slice(url.indexOf('/', 8), url.indexOf('?'));
const queryOf = (url: string) => url.slice(url.indexOf('?'));
const withParam = (url: string, name: string, value: string | undefined) => {
  const parsed = new URL(url);
  if (value === undefined) parsed.searchParams.delete(name);
  else parsed.searchParams.set(name, value);
  return parsed.toString();
};

type SourceData = string | ArrayBuffer | ArrayBufferView;

/** node:crypto as the hash the reference signer needs (a hash with a secret is an HMAC). */
class NodeSha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: Uint8Array): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}
const bytesOf = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(new Uint8Array(data));

const headerSigner = (secretAccessKey = 'S3RVER') =>
  new SignatureV4({
    credentials: { accessKeyId: 'S3RVER', secretAccessKey },
    region: REGION,
    service: 's3',
    sha256: NodeSha256,
    uriEscapePath: false,
    applyChecksum: true,
  });

/** A header-signed request as the SDK's S3 client sends it (path encoded once, body hashed). */
const signHeaders = async (
  init: {
    method: string;
    path: string;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    body?: string;
  },
  options: { secret?: string; signingDate?: Date } = {},
): Promise<S3Request> => {
  const signed = await headerSigner(options.secret).sign(
    {
      method: init.method,
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 4569,
      path: init.path,
      query: init.query ?? {},
      headers: { host: HOST, ...init.headers },
      body: init.body,
    },
    { signingDate: options.signingDate ?? SIGNED_AT },
  );
  const query = new URLSearchParams(init.query ?? {}).toString().replaceAll('+', '%20');
  return { method: init.method, url: `${init.path}${query ? `?${query}` : ''}`, headers: signed.headers };
};

const encodedKey = (key: string) =>
  key
    .split('/')
    .map((s) =>
      encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');

describe('presigned URLs from @aws-sdk/s3-request-presigner', () => {
  it('verifies a download URL, with the access key id that signed it', async () => {
    const url = await presignGet(A_OBJECT);
    expect(verify(requestFor(url))).toEqual({ accessKeyId: 'S3RVER' });
  });

  it("verifies a URL signed by another known key with that key's own secret", async () => {
    const url = await presignGet(A_OBJECT, 604_800, client('AKIASIGNER'));
    expect(verify(requestFor(url), new Date(SIGNED_AT.getTime() + 604_000_000))).toEqual({
      accessKeyId: 'AKIASIGNER',
    });
  });

  it('verifies an upload URL sent with exactly the signed content type and length', async () => {
    const url = await presignPut(B_OBJECT);
    const sent = requestFor(url, 'PUT', { 'content-type': 'image/png', 'content-length': '5120' });
    expect(verify(sent)).toEqual({ accessKeyId: 'S3RVER' });
  });

  it("refuses another tenant's path in front of a download URL's query with SignatureDoesNotMatch", async () => {
    const own = await presignGet(B_OBJECT);
    const borrowed = `${ENDPOINT}/${BUCKET}/${encodedKey(A_OBJECT)}${queryOf(own)}`;
    expect(refusal(requestFor(borrowed))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it("refuses another tenant's path in front of an upload URL's query", async () => {
    const own = await presignPut(B_OBJECT);
    const borrowed = `${ENDPOINT}/${BUCKET}/${encodedKey(A_OBJECT)}${queryOf(own)}`;
    const sent = requestFor(borrowed, 'PUT', { 'content-type': 'image/png', 'content-length': '5120' });
    expect(refusal(sent)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it("refuses a listing of another tenant's prefix under a download URL's query", async () => {
    const own = await presignGet(B_OBJECT);
    const listing = `${ENDPOINT}/${BUCKET}${queryOf(own)}&list-type=2&prefix=companies%2Fco_A%2F`;
    expect(refusal(requestFor(listing))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    const bare = `${ENDPOINT}/${BUCKET}${queryOf(own)}`;
    expect(refusal(requestFor(bare))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('refuses an upload with another content type or length than signed', async () => {
    const url = await presignPut(B_OBJECT);
    expect(
      refusal(requestFor(url, 'PUT', { 'content-type': 'text/html', 'content-length': '5120' })),
    ).toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(
      refusal(requestFor(url, 'PUT', { 'content-type': 'image/png', 'content-length': '9999' })),
    ).toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(refusal(requestFor(url, 'PUT', { 'content-type': 'image/png' }))).toMatchObject({
      code: 'SignatureDoesNotMatch',
    });
  });

  it('refuses a download URL used for another method', async () => {
    const url = await presignGet(B_OBJECT);
    expect(refusal(requestFor(url, 'DELETE'))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it.each([
    ['X-Amz-Expires', '604800'],
    ['X-Amz-Date', '20260301T120001Z'],
    ['x-id', 'PutObject'],
    ['x-id', undefined],
    ['response-content-type', 'text/html'],
  ])('refuses the URL once %s is changed to %s', async (name, value) => {
    const url = await presignGet(B_OBJECT);
    expect(refusal(requestFor(withParam(url, name, value)))).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
  });

  it.each([
    'X-Amz-Algorithm',
    'X-Amz-Credential',
    'X-Amz-Date',
    'X-Amz-Expires',
    'X-Amz-SignedHeaders',
    'X-Amz-Signature',
  ])('refuses the URL without %s as S3 does (AuthorizationQueryParametersError)', async (name) => {
    const url = await presignGet(B_OBJECT);
    expect(refusal(requestFor(withParam(url, name, undefined)))).toMatchObject({
      status: 400,
      code: 'AuthorizationQueryParametersError',
    });
  });

  it('refuses the object path with no query at all with AccessDenied', async () => {
    const url = await presignGet(B_OBJECT);
    expect(refusal(requestFor(`${ENDPOINT}${pathOf(url)}`))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it('refuses a flipped signature', async () => {
    const url = await presignGet(B_OBJECT);
    const signature = new URL(url).searchParams.get('X-Amz-Signature') as string;
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    expect(refusal(requestFor(withParam(url, 'X-Amz-Signature', flipped)))).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    expect(refusal(requestFor(withParam(url, 'X-Amz-Signature', 'not-hex')))).toMatchObject({
      code: 'SignatureDoesNotMatch',
    });
  });

  it('refuses a URL signed with a wrong secret for a known key id', async () => {
    const url = await presignGet(B_OBJECT, 3600, client('S3RVER', 'guessed'));
    expect(refusal(requestFor(url))).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('refuses a URL of an unknown access key id with InvalidAccessKeyId', async () => {
    const url = await presignGet(B_OBJECT, 3600, client('AKIAUNKNOWN', 'whatever'));
    expect(refusal(requestFor(url))).toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
  });

  it('refuses an expired URL with AccessDenied "Request has expired", and accepts it until then', async () => {
    const url = await presignGet(B_OBJECT, 60);
    expect(verify(requestFor(url), new Date(SIGNED_AT.getTime() + 60_000))).toEqual({
      accessKeyId: 'S3RVER',
    });
    expect(refusal(requestFor(url), new Date(SIGNED_AT.getTime() + 61_000))).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'Request has expired',
    });
  });

  it('refuses a URL signed for more than 7 days, and one dated in the future', async () => {
    const url = await presignGet(B_OBJECT);
    expect(refusal(requestFor(withParam(url, 'X-Amz-Expires', '604801')))).toMatchObject({
      status: 400,
      code: 'AuthorizationQueryParametersError',
    });
    expect(refusal(requestFor(url), new Date(SIGNED_AT.getTime() - 16 * 60_000))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      message: 'Request is not valid yet',
    });
  });

  it('refuses a credential scope of another region or service', async () => {
    const url = await presignGet(B_OBJECT);
    const credential = new URL(url).searchParams.get('X-Amz-Credential') as string;
    for (const scope of [credential.replace(REGION, 'eu-west-1'), credential.replace('/s3/', '/iam/')]) {
      expect(refusal(requestFor(withParam(url, 'X-Amz-Credential', scope)))).toMatchObject({
        status: 400,
        code: 'AuthorizationQueryParametersError',
      });
    }
  });

  it.each([
    '/companies/co_B/../co_A/',
    '/companies/co_B/%2e%2e/co_A/',
    '/companies/co_B/%2E%2E%2Fco_A/',
    '/companies/co_B/./',
    '/companies/co_B/..%5Cco_A/',
  ])('refuses a path with a dot segment (%s) with AccessDenied, whatever the signature', async (middle) => {
    const url = await presignGet(B_OBJECT);
    const traversal = `${ENDPOINT}/${BUCKET}${middle}${A_OBJECT.split('/').slice(2).join('/')}${queryOf(url)}`;
    expect(refusal(requestFor(traversal))).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  it('refuses an x-amz-* header the URL does not sign (a copy source on an upload URL)', async () => {
    const url = await presignPut(B_OBJECT);
    const sent = requestFor(url, 'PUT', {
      'content-type': 'image/png',
      'content-length': '5120',
      'x-amz-copy-source': `${BUCKET}/${A_OBJECT}`,
    });
    expect(refusal(sent)).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'There were headers present in the request which were not signed',
    });
  });

  it('refuses a SigV2 query and a request that mixes two mechanisms', async () => {
    const v2 = `${ENDPOINT}/${BUCKET}/${B_OBJECT}?AWSAccessKeyId=S3RVER&Expires=1900000000&Signature=abc`;
    expect(refusal(requestFor(v2))).toMatchObject({ status: 400, code: 'InvalidRequest' });
    const url = await presignGet(B_OBJECT);
    const both = requestFor(url, 'GET', { authorization: 'AWS4-HMAC-SHA256 Credential=x' });
    expect(refusal(both)).toMatchObject({ status: 400, code: 'InvalidArgument' });
  });
});

describe('header-signed requests from @smithy/signature-v4', () => {
  const body = 'hello, tenant';
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const putA = {
    method: 'PUT',
    path: `/${BUCKET}/${encodedKey(A_OBJECT)}`,
    body,
    headers: { 'content-type': 'text/plain' },
  };

  it('verifies a PUT and reports the body hash the front must check', async () => {
    expect(verify(await signHeaders(putA))).toEqual({ accessKeyId: 'S3RVER', payloadSha256: bodyHash });
  });

  it('verifies a listing with query parameters', async () => {
    const list = await signHeaders({
      method: 'GET',
      path: `/${BUCKET}`,
      query: { 'list-type': '2', prefix: 'companies/co_A/ with spaces' },
    });
    expect(verify(list)).toEqual({
      accessKeyId: 'S3RVER',
      payloadSha256: createHash('sha256').update('').digest('hex'),
    });
  });

  it('refuses a changed path, query, signed header or signature', async () => {
    const signed = await signHeaders(putA);
    const variants: S3Request[] = [
      { ...signed, url: `/${BUCKET}/${encodedKey(B_OBJECT)}` },
      { ...signed, url: `${signed.url}?acl=` },
      { ...signed, headers: { ...signed.headers, 'content-type': 'text/html' } },
      { ...signed, method: 'DELETE' },
      {
        ...signed,
        headers: {
          ...signed.headers,
          authorization: String(signed.headers.authorization).replace(/Signature=[0-9a-f]/, 'Signature=x'),
        },
      },
    ];
    for (const variant of variants)
      expect(refusal(variant)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });

  it('refuses a wrong secret, and an unknown key id', async () => {
    expect(refusal(await signHeaders(putA, { secret: 'guessed' }))).toMatchObject({
      code: 'SignatureDoesNotMatch',
    });
    const signed = await signHeaders(putA);
    const unknown = String(signed.headers.authorization).replace(
      'Credential=S3RVER/',
      'Credential=AKIAUNKNOWN/',
    );
    expect(refusal({ ...signed, headers: { ...signed.headers, authorization: unknown } })).toMatchObject({
      status: 403,
      code: 'InvalidAccessKeyId',
    });
  });

  it('refuses a request dated more than 15 minutes away with RequestTimeTooSkewed', async () => {
    const signed = await signHeaders(putA);
    expect(verify(signed, new Date(SIGNED_AT.getTime() + 14 * 60_000))).toMatchObject({
      accessKeyId: 'S3RVER',
    });
    expect(refusal(signed, new Date(SIGNED_AT.getTime() + 16 * 60_000))).toMatchObject({
      status: 403,
      code: 'RequestTimeTooSkewed',
    });
    expect(refusal(signed, new Date(SIGNED_AT.getTime() - 16 * 60_000))).toMatchObject({
      code: 'RequestTimeTooSkewed',
    });
  });

  it('refuses a request without a signature, or without x-amz-content-sha256', async () => {
    const signed = await signHeaders(putA);
    const { authorization: _auth, ...unsigned } = signed.headers;
    expect(refusal({ ...signed, headers: unsigned })).toMatchObject({ status: 403, code: 'AccessDenied' });
    const { 'x-amz-content-sha256': _hash, ...noHash } = signed.headers;
    expect(refusal({ ...signed, headers: noHash })).toMatchObject({ status: 400, code: 'InvalidRequest' });
  });

  it('refuses an unsigned x-amz-* header added to a signed request', async () => {
    const signed = await signHeaders(putA);
    const added = { ...signed, headers: { ...signed.headers, 'x-amz-copy-source': `${BUCKET}/${B_OBJECT}` } };
    expect(refusal(added)).toMatchObject({ status: 403, code: 'AccessDenied' });
  });
});
