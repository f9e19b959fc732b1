import { describe, expect, it, vi } from 'vitest';

// Structurally invalid or wrongly signed tokens must be refused without a database request: the handler's
// data modules are replaced by spies that fail the test if they are reached.
const { keyFile } = vi.hoisted(() => {
  const { mkdtempSync, writeFileSync } = require('node:fs') as typeof import('node:fs');
  const { join } = require('node:path') as typeof import('node:path');
  const { tmpdir } = require('node:os') as typeof import('node:os');
  const { generateKeyPairSync } = require('node:crypto') as typeof import('node:crypto');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const dir = mkdtempSync(join(tmpdir(), 'jwt-unit-'));
  const file = join(dir, 'keys.json');
  const key = {
    kid: 'unit-1',
    privateJwk: privateKey.export({ format: 'jwk' }),
    publicJwk: publicKey.export({ format: 'jwk' }),
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  writeFileSync(file, JSON.stringify({ keys: [key] }));
  // The authorizer is given the public verification keys only: the signing set is this test's own.
  const { kid, publicJwk, createdAt } = key;
  const verification = join(dir, 'verification-keys.json');
  writeFileSync(verification, JSON.stringify({ keys: [{ kid, publicJwk, createdAt }] }));
  process.env.JWT_PUBLIC_KEYS_FILE = verification;
  delete process.env.JWT_KEYS_FILE;
  return { keyFile: file };
});

const reached = vi.fn(async () => {
  throw new Error('database must not be reached');
});
vi.mock('../../functions/shared/data/api-keys', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/api-keys')>()),
  findApiKeyBySecret: reached,
}));
vi.mock('../../functions/shared/data/companies', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/companies')>()),
  getCompany: reached,
}));

const { handler } = await import('../../functions/authorizer/index');
const { signJwt } = await import('../../functions/shared/auth/jwt');
const { parseKeySet } = await import('../../functions/shared/auth/signing-keys');
const { readFileSync } = await import('node:fs');

const key = parseKeySet(readFileSync(keyFile, 'utf8')).keys[0];
if (!key) throw new Error('no key');
const now = Math.floor(Date.now() / 1000);
const claims = { companyId: 'co_1', kind: 'v1', iat: now, exp: now + 300, jti: 'jwt-1', src: 'key_1' };
const refused: [string, string][] = [
  ['not a JWT', 'abc'],
  ['alg none', `${Buffer.from('{"alg":"none","kid":"unit-1"}').toString('base64url')}.e30.`],
  ['unknown kid', await signJwt(claims, { ...key, kid: 'other' })],
  ['expired', await signJwt({ ...claims, exp: now - 600 }, key)],
  ['kind oauth_connect', await signJwt({ ...claims, kind: 'oauth_connect' }, key)],
  ['ips mismatch', await signJwt({ ...claims, ips: ['198.51.100.0/24'] }, key)],
];

const event = (headers: Record<string, string>) =>
  ({
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:local:0:api/v1/GET/self',
    headers,
    requestContext: { requestId: 'r', identity: { sourceIp: '192.0.2.1' } },
  }) as never;

describe('authorizer refusals that need no database', () => {
  it.each(refused)('refuses %s with Unauthorized and zero database requests', async (_name, token) => {
    await expect(handler(event({ 'x-jwt-token': token }))).rejects.toThrow('Unauthorized');
    await expect(handler(event({ 'x-auth-token': token }))).rejects.toThrow('Unauthorized');
    expect(reached).not.toHaveBeenCalled();
  });

  it('refuses a malformed API key with zero database requests', async () => {
    await expect(handler(event({ 'x-api-key': 'sk-nope' }))).rejects.toThrow('Unauthorized');
    expect(reached).not.toHaveBeenCalled();
  });
});
