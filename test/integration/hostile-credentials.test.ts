import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/shared/routes/route-table';
import { call, createTenant, expectProblem, revokeKey } from './support';

const { signJwt } = await import('../../functions/shared/auth/jwt');
const { mintJwt } = await import('../../functions/shared/auth/jwt-mint');
const { issueToken, revokeToken } = await import('../../functions/shared/domain/tokens');
const OPERATOR = { kind: 'operator' } as const;
const { currentSigningKey, loadKeySet } = await import('../../functions/shared/auth/signing-keys');

const gated = ROUTES.filter((r) => r.scope !== 'public');
// Routes that name one scope; the MCP server takes any credential and refuses inside its answer, per tool.
const scoped = gated.filter((r) => r.scope !== 'authenticated');
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

let hostile: [string, Record<string, string>][] = [];
let noScopes = '';

beforeAll(async () => {
  const key = currentSigningKey(await loadKeySet());
  const tenant = await createTenant();
  const revoked = await createTenant();
  await revokeKey(revoked.companyId, revoked.keyId);
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    companyId: tenant.companyId,
    kind: 'v1',
    iat: now,
    exp: now + 300,
    jti: 'hostile-1',
    src: tenant.keyId,
    scopes: scoped.map((r) => r.scope),
  };
  const [, payload] = (await signJwt(claims, key)).split('.');
  const root = await issueToken(
    { companyId: tenant.companyId, source: OPERATOR, scopes: scoped.map((r) => r.scope), advanced: true },
    'operator',
    new Date(),
  );
  await revokeToken(tenant.companyId, root.jti, new Date());
  const revokedRoot = root.jti;
  const revokedRootToken = root.token;
  noScopes = (await mintJwt({ companyId: tenant.companyId, source: OPERATOR }, key, new Date())).token;
  hostile = [
    ['alg none', { 'x-jwt-token': `${b64({ alg: 'none', kid: key.kid })}.${payload}.` }],
    ['unknown kid', { 'x-jwt-token': await signJwt(claims, { ...key, kid: 'retired-kid' }) }],
    ['expired', { 'x-jwt-token': await signJwt({ ...claims, exp: now - 600 }, key) }],
    ['exp ten years ahead', { 'x-jwt-token': await signJwt({ ...claims, exp: now + 315_360_000 }, key) }],
    ['iat missing', { 'x-jwt-token': await signJwt({ ...claims, iat: undefined }, key) }],
    ['nbf in the future', { 'x-jwt-token': await signJwt({ ...claims, nbf: now + 600 }, key) }],
    ['kind oauth_connect', { 'x-jwt-token': await signJwt({ ...claims, kind: 'oauth_connect' }, key) }],
    ['kind absent', { 'x-jwt-token': await signJwt({ ...claims, kind: undefined }, key) }],
    [
      'ips mismatch with spoofed X-Forwarded-For',
      {
        'x-jwt-token': await signJwt({ ...claims, ips: ['198.51.100.4'] }, key),
        'x-forwarded-for': '198.51.100.4',
      },
    ],
    ['revoked API key', { 'x-api-key': revoked.apiKey }],
    // Tokens derived from a credential: each names its root (`src`), which must not be revoked.
    ['src missing', { 'x-jwt-token': await signJwt({ ...claims, src: undefined }, key) }],
    ['jti missing', { 'x-jwt-token': await signJwt({ ...claims, jti: undefined }, key) }],
    [
      'derived from a revoked API key',
      {
        'x-jwt-token': await signJwt(
          { ...claims, companyId: revoked.companyId, jti: 'derived-1', src: revoked.keyId },
          key,
        ),
      },
    ],
    [
      'derived from a revoked operator token',
      { 'x-jwt-token': await signJwt({ ...claims, jti: 'derived-2', src: `jti:${revokedRoot}` }, key) },
    ],
    ['revoked operator token', { 'x-jwt-token': revokedRootToken }],
    ['oversized header', { 'x-api-key': `sk-${'a'.repeat(10_000)}` }],
    ['non-ASCII garbage', { 'x-jwt-token': '\u00ff\u00fe\u00e9t\u00e9.\u00e0.\u00fc' }],
    ['empty x-jwt-token over a valid key', { 'x-jwt-token': '', 'x-api-key': tenant.apiKey }],
  ];
});

describe('hostile credentials on every gated route', () => {
  it.each(gated.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s refuses each with 401',
    async (_name, route) => {
      for (const [label, headers] of hostile) {
        const res = await call(route.method, concrete(route.path), {
          headers,
          ...(route.method === 'POST' ? { body: {} } : {}),
        });
        expect.soft(res.status, label).toBe(401);
        expectProblem(res, 401, 'unauthorized');
      }
    },
  );

  it.each(scoped.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s refuses a token without scopes with 403 insufficient_scope',
    async (_name, route) => {
      const res = await call(route.method, concrete(route.path), {
        headers: { 'x-jwt-token': noScopes },
        ...(route.method === 'POST' ? { body: {} } : {}),
      });
      expectProblem(res, 403, 'insufficient_scope');
      expect(res.json.requiredScope).toBe(route.scope);
    },
  );
});
