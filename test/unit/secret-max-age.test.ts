import { writeFileSync } from 'node:fs';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The verification keys come from a file here (the local stack's store); it is rewritten by each test.
const { keyFile } = vi.hoisted(() => {
  const { mkdtempSync } = require('node:fs') as typeof import('node:fs');
  const { join } = require('node:path') as typeof import('node:path');
  const { tmpdir } = require('node:os') as typeof import('node:os');
  const file = join(mkdtempSync(join(tmpdir(), 'secret-max-age-')), 'keys.json');
  process.env.JWT_PUBLIC_KEYS_FILE = file;
  delete process.env.JWT_PUBLIC_KEYS_SECRET_ARN;
  return { keyFile: file };
});

const { readSecretString, secretsManager } = await import('../../functions/shared/aws/secrets-manager');
const { forgetPublicKeySet, generateSigningKey, KEY_SET_MAX_AGE_MS, loadPublicKeySet, publicKeySetOf } =
  await import('../../functions/shared/auth/signing-keys');

const t0 = Date.parse('2026-06-01T12:00:00Z');
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(t0);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('secrets read through Powertools Parameters', () => {
  it('keeps a value for its max age, then reads it again; a fresh read skips the kept value', async () => {
    let version = 0;
    const send = vi.spyOn(secretsManager(), 'send').mockImplementation(async (command: unknown) => {
      expect(command).toBeInstanceOf(GetSecretValueCommand);
      version += 1;
      return { SecretString: `value-${version}` };
    });
    const read = (fresh?: boolean) => readSecretString('arn:secret:max-age', { maxAgeSeconds: 60, fresh });
    expect(await read()).toBe('value-1');
    vi.setSystemTime(t0 + 59_000);
    expect(await read()).toBe('value-1');
    vi.setSystemTime(t0 + 61_000);
    expect(await read()).toBe('value-2');
    expect(await read(true)).toBe('value-3');
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('keeps no failed read: the next call reads again', async () => {
    const send = vi
      .spyOn(secretsManager(), 'send')
      .mockImplementationOnce(async () => {
        throw new Error('throttled');
      })
      .mockImplementationOnce(async () => ({ SecretString: 'value' }));
    const read = () => readSecretString('arn:secret:failing', { maxAgeSeconds: 3600 });
    await expect(read()).rejects.toThrow('throttled');
    expect(await read()).toBe('value');
    expect(send).toHaveBeenCalledTimes(2);
  });
});

describe('the verification key set', () => {
  const first = { ...generateSigningKey(new Date(t0)), kid: 'first' };
  const second = { ...generateSigningKey(new Date(t0)), kid: 'second' };
  const writeKeys = (keys: (typeof first)[]) =>
    writeFileSync(keyFile, JSON.stringify(publicKeySetOf({ keys })));
  const kids = async () => (await loadPublicKeySet()).keys.map((k) => k.kid);

  it('stops holding a dropped key once the set it read is a minute old', async () => {
    expect(KEY_SET_MAX_AGE_MS).toBe(60_000);
    writeKeys([first, second]);
    forgetPublicKeySet();
    expect(await kids()).toEqual(['first', 'second']);
    // A key dropped after a compromise: a warm instance keeps the set it read for at most a minute.
    writeKeys([second]);
    vi.setSystemTime(t0 + 30_000);
    expect(await kids()).toEqual(['first', 'second']);
    vi.setSystemTime(t0 + 61_000);
    expect(await kids()).toEqual(['second']);
  });

  it('gives the same set object while its text is unchanged, and reads it again at once when forgotten', async () => {
    writeKeys([first]);
    forgetPublicKeySet();
    const set = await loadPublicKeySet();
    vi.setSystemTime(t0 + 61_000);
    expect(await loadPublicKeySet()).toBe(set);
    writeKeys([first, second]);
    forgetPublicKeySet();
    expect((await loadPublicKeySet()).keys.map((k) => k.kid)).toEqual(['first', 'second']);
  });
});
