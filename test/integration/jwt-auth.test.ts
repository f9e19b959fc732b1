import { createHmac, createPublicKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SigningKey } from '../../functions/shared/auth/jwt';
import { call, createTenant, expectProblem } from './support';

const { signJwt } = await import('../../functions/shared/auth/jwt');
const { mintJwt } = await import('../../functions/shared/auth/jwt-mint');
const OPERATOR = { kind: 'operator' } as const;
const { currentSigningKey, generateSigningKey, loadKeySet } = await import(
  '../../functions/shared/auth/signing-keys'
);

let key: SigningKey;
let companyId: string;
let apiKey: string;
let keyId: string;
const now = () => Math.floor(Date.now() / 1000);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

beforeAll(async () => {
  key = currentSigningKey(await loadKeySet());
  const tenant = await createTenant();
  companyId = tenant.companyId;
  apiKey = tenant.apiKey;
  keyId = tenant.keyId;
});

const claims = (extra: Record<string, unknown> = {}) => ({
  companyId,
  kind: 'v1',
  iat: now(),
  exp: now() + 300,
  jti: `jwt-${now()}`,
  src: keyId,
  scopes: ['company:read'],
  ...extra,
});
const self = (headers: Record<string, string>) => call('GET', '/v1/self', { headers });

describe('JWT authentication', () => {
  it('accepts a minted v1 token in x-jwt-token and in x-auth-token', async () => {
    const { token } = await mintJwt(
      { companyId, source: OPERATOR, scopes: ['company:read'], advanced: true },
      key,
      new Date(),
    );
    for (const header of ['x-jwt-token', 'x-auth-token']) {
      const res = await self({ [header]: token });
      expect(res.status).toBe(200);
      expect((res.json.company as { id: string }).id).toBe(companyId);
    }
  });

  it('authenticates a token without a scopes claim but refuses it on a gated route with 403', async () => {
    const { token } = await mintJwt({ companyId, source: OPERATOR }, key, new Date());
    expectProblem(await self({ 'x-jwt-token': token }), 403, 'insufficient_scope');
  });

  it.each([
    ['kind absent', { kind: undefined }],
    ['kind a number', { kind: 1 }],
    ['kind empty', { kind: '' }],
    ['kind oauth_connect', { kind: 'oauth_connect' }],
    ['kind V1', { kind: 'V1' }],
    ['expired', { exp: now() - 120 }],
    ['exp missing', { exp: undefined }],
    ['exp ten years ahead', { exp: now() + 10 * 365 * 86_400 }],
    ['a lifetime over 3600 s', { exp: now() + 7200 }],
    ['iat missing', { iat: undefined }],
    ['nbf in the future', { nbf: now() + 600 }],
    ['unknown scope', { scopes: ['company:read', 'admin:all'] }],
    ['companyId missing', { companyId: undefined }],
  ])('refuses a token with %s with 401', async (_name, extra) => {
    expectProblem(await self({ 'x-jwt-token': await signJwt(claims(extra), key) }), 401, 'unauthorized');
  });

  it('refuses alg none, HS256 signed with the public key, an unknown kid and a tampered payload', async () => {
    const good = await signJwt(claims(), key);
    const [h, p, s] = good.split('.');
    const publicPem = createPublicKey({ key: key.publicJwk, format: 'jwk' }).export({
      format: 'pem',
      type: 'spki',
    });
    const hsHeader = b64({ alg: 'HS256', typ: 'JWT', kid: key.kid });
    const hs = createHmac('sha256', publicPem).update(`${hsHeader}.${p}`).digest('base64url');
    const stranger = generateSigningKey(new Date());
    const tokens = [
      `${b64({ alg: 'none', typ: 'JWT', kid: key.kid })}.${p}.`,
      `${hsHeader}.${p}.${hs}`,
      await signJwt(claims(), { ...stranger, kid: 'unknown-kid' }),
      await signJwt(claims(), { ...stranger, kid: key.kid }),
      `${h}.${b64({ ...claims(), companyId: 'co_other' })}.${s}`,
      'not.a.jwt',
      `${h}.${p}`,
    ];
    for (const token of tokens) expectProblem(await self({ 'x-jwt-token': token }), 401, 'unauthorized');
  });

  it('checks ips against the source address, ignoring X-Forwarded-For', async () => {
    const allowed = await mintJwt(
      { companyId, source: OPERATOR, ips: ['127.0.0.0/8'], scopes: ['company:read'], advanced: true },
      key,
      new Date(),
    );
    expect((await self({ 'x-jwt-token': allowed.token })).status).toBe(200);
    const elsewhere = await mintJwt(
      {
        companyId,
        source: OPERATOR,
        ips: ['203.0.113.7', '2001:db8::/32'],
        scopes: ['company:read'],
        advanced: true,
      },
      key,
      new Date(),
    );
    expectProblem(
      await self({ 'x-jwt-token': elsewhere.token, 'x-forwarded-for': '203.0.113.7' }),
      401,
      'unauthorized',
    );
  });

  it('lets the winning header alone decide', async () => {
    const expired = await signJwt(claims({ exp: now() - 3600 }), key);
    expectProblem(await self({ 'x-jwt-token': expired, 'x-api-key': apiKey }), 401, 'unauthorized');
    const valid = (
      await mintJwt(
        { companyId, source: OPERATOR, scopes: ['company:read'], advanced: true },
        key,
        new Date(),
      )
    ).token;
    expect((await self({ 'x-jwt-token': valid, 'x-api-key': 'sk-invalid' })).status).toBe(200);
    expectProblem(await self({ 'x-api-key': 'sk-invalid', 'x-auth-token': valid }), 401, 'unauthorized');
  });
});
