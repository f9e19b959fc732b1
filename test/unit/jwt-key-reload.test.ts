import { writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

// The authorizer reads the verification keys from a file here; a rotation elsewhere rewrites that file.
const { keyFile } = vi.hoisted(() => {
  const { mkdtempSync } = require('node:fs') as typeof import('node:fs');
  const { join } = require('node:path') as typeof import('node:path');
  const { tmpdir } = require('node:os') as typeof import('node:os');
  const file = join(mkdtempSync(join(tmpdir(), 'jwt-reload-')), 'keys.json');
  process.env.JWT_PUBLIC_KEYS_FILE = file;
  // The authorizer verifies with the public keys alone: no signing set is configured here.
  delete process.env.JWT_KEYS_FILE;
  delete process.env.JWT_KEYS_SECRET_ARN;
  return { keyFile: file };
});

// No database here: no credential is revoked.
vi.mock('../../functions/shared/data/credentials', () => ({ revokedCredentials: async () => new Set() }));

const { authenticate } = await import('../../functions/authorizer/authenticate');
const { signJwt } = await import('../../functions/shared/auth/jwt');
const { generateSigningKey, publicKeySetOf } = await import('../../functions/shared/auth/signing-keys');

const t0 = Date.parse('2026-06-01T12:00:00Z');
const first = generateSigningKey(new Date(t0 - 86_400_000));
const second = { ...generateSigningKey(new Date(t0)), kid: 'second' };
const third = { ...generateSigningKey(new Date(t0)), kid: 'third' };
const writeKeys = (keys: (typeof first)[]) =>
  writeFileSync(keyFile, JSON.stringify(publicKeySetOf({ keys })));
const tokenOf = (key: typeof first) =>
  signJwt(
    {
      companyId: 'co_1',
      kind: 'v1',
      iat: Math.floor(t0 / 1000),
      exp: Math.floor(t0 / 1000) + 3600,
      jti: 'jwt-1',
      src: 'key_1',
      scopes: [],
    },
    key,
  );
const jwt = async (key: typeof first, now: number) =>
  authenticate({ header: 'x-jwt-token', kind: 'jwt', value: await tokenOf(key) }, '192.0.2.1', now);

describe('JWT verification keys', () => {
  it('reloads the key set on an unknown kid, at most once a minute', async () => {
    writeKeys([first]);
    expect((await jwt(first, t0)).ok).toBe(true);

    // A rotation adds a key after this instance loaded the set: the first unknown kid reloads it.
    writeKeys([first, second]);
    expect((await jwt(second, t0 + 1_000)).ok).toBe(true);

    // Another rotation within the minute: the new kid stays unknown until a minute has passed.
    writeKeys([second, third]);
    expect(await jwt(third, t0 + 30_000)).toEqual({ ok: false, reason: 'unknown_kid' });
    expect((await jwt(first, t0 + 30_000)).ok).toBe(true);
    expect((await jwt(third, t0 + 62_000)).ok).toBe(true);
    // The reloaded set no longer holds the retired key.
    expect(await jwt(first, t0 + 62_000)).toEqual({ ok: false, reason: 'unknown_kid' });
  });
});
