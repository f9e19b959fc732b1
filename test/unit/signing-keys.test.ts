import { mkdtempSync, readFileSync, statSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// Both sets are files here, as in the local stack.
const { dir } = vi.hoisted(() => {
  const { mkdtempSync: mkdtemp } = require('node:fs') as typeof import('node:fs');
  const { join: joinPath } = require('node:path') as typeof import('node:path');
  const { tmpdir: tmp } = require('node:os') as typeof import('node:os');
  const directory = mkdtemp(joinPath(tmp(), 'jwt-keys-'));
  process.env.JWT_KEYS_FILE = joinPath(directory, 'jwt-signing-keys.json');
  process.env.JWT_PUBLIC_KEYS_FILE = joinPath(directory, 'jwt-verification-keys.json');
  return { dir: directory };
});

const {
  generateSigningKey,
  loadKeySet,
  loadPublicKeySet,
  parsePublicKeySet,
  publicKeySetOf,
  rotateKeySet,
  storeKeySet,
} = await import('../../functions/shared/auth/signing-keys');

const signingFile = join(dir, 'jwt-signing-keys.json');
const verificationFile = join(dir, 'jwt-verification-keys.json');

describe('verification key set', () => {
  it('holds each key id, public JWK and creation time, and no private key material', () => {
    const key = generateSigningKey(new Date('2026-01-01T00:00:00Z'));
    const set = publicKeySetOf({ keys: [key] });
    expect(set).toEqual({ keys: [{ kid: key.kid, publicJwk: key.publicJwk, createdAt: key.createdAt }] });
    expect(JSON.stringify(set)).not.toContain('"d"');
    expect(JSON.stringify(set)).not.toContain('privateJwk');
  });

  it('refuses a stored verification set that holds a private key', () => {
    const key = generateSigningKey(new Date('2026-01-01T00:00:00Z'));
    expect(() => parsePublicKeySet(JSON.stringify({ keys: [key] }))).toThrow(/private key material/);
    const { kid, createdAt, privateJwk } = key;
    expect(() =>
      parsePublicKeySet(JSON.stringify({ keys: [{ kid, createdAt, publicJwk: privateJwk }] })),
    ).toThrow(/private key material/);
    expect(() => parsePublicKeySet(JSON.stringify({ keys: [] }))).toThrow(/no keys/);
  });
});

describe('rotation', () => {
  it('writes the verification set before the signing set, each with the same key ids', async () => {
    const order: string[] = [];
    const watcher = watch(dir, (_event, name) => {
      if (name && order.at(-1) !== name) order.push(name);
    });
    const set = rotateKeySet(
      rotateKeySet(undefined, new Date('2026-01-01T00:00:00Z')),
      new Date('2026-02-01T00:00:00Z'),
    );
    await storeKeySet(set);
    await new Promise((resolve) => setTimeout(resolve, 50));
    watcher.close();
    expect(order).toEqual(['jwt-verification-keys.json', 'jwt-signing-keys.json']);

    const kids = set.keys.map((k) => k.kid);
    expect((await loadKeySet()).keys.map((k) => k.kid)).toEqual(kids);
    expect((await loadPublicKeySet()).keys.map((k) => k.kid)).toEqual(kids);
    expect(readFileSync(verificationFile, 'utf8')).not.toContain('privateJwk');
    expect(statSync(signingFile).mode & 0o077).toBe(0);
  });

  it('writes nothing when the verification set has nowhere to go', async () => {
    const other = mkdtempSync(join(tmpdir(), 'jwt-keys-'));
    const before = readFileSync(signingFile, 'utf8');
    vi.resetModules();
    vi.stubEnv('JWT_PUBLIC_KEYS_FILE', '');
    vi.stubEnv('JWT_KEYS_FILE', join(other, 'jwt-signing-keys.json'));
    try {
      const fresh = await import('../../functions/shared/auth/signing-keys');
      await expect(fresh.storeKeySet(fresh.rotateKeySet(undefined, new Date()))).rejects.toThrow(
        /JWT_PUBLIC_KEYS_SECRET_ARN or JWT_PUBLIC_KEYS_FILE/,
      );
      expect(() => statSync(join(other, 'jwt-signing-keys.json'))).toThrow();
      expect(readFileSync(signingFile, 'utf8')).toBe(before);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
