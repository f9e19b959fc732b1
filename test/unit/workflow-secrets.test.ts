import { describe, expect, it } from 'vitest';
import { newSecretRegistry, redactSecrets, secretsOf } from '../../functions/shared/domain/workflows/secrets';

const token = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl';
const output = { token, jti: 'j-1', expiresAt: '2026-11-25T13:00:00.000Z' };

describe('run secrets', () => {
  const secrets = newSecretRegistry();
  for (const [value, standIn] of secretsOf(output, ['token'])) secrets.set(value, standIn);

  it('registers only the declared fields, with a stand-in naming the secret', () => {
    expect([...secrets.entries()]).toEqual([
      [token, { redacted: true, jti: 'j-1', expiresAt: '2026-11-25T13:00:00.000Z' }],
    ]);
    expect(secretsOf(output, undefined)).toEqual([]);
    expect(secretsOf({ token: 'short' }, ['token'])).toEqual([]);
  });

  it('replaces whole values, embedded copies and copies at any depth, and keeps keys valid', () => {
    let deep: unknown = { headers: { authorization: `Bearer ${token}` } };
    for (let i = 0; i < 2_000; i++) deep = [deep];
    const redacted = redactSecrets(
      { result: { token }, echoed: `x=${token}&y=1`, list: [token], [token]: 1, deep },
      secrets,
    );
    const text = JSON.stringify(redacted);
    expect(text).not.toContain(token);
    expect(redacted.result.token).toEqual({
      redacted: true,
      jti: 'j-1',
      expiresAt: '2026-11-25T13:00:00.000Z',
    });
    expect(redacted.echoed).toBe('x=[redacted]&y=1');
    expect(redacted.list).toEqual([redacted.result.token]);
    expect(Object.keys(redacted)).toContain('[redacted]');
  });

  it('keeps JSON valid when a secret follows an escaped quote or a backslash', () => {
    for (const text of [`"${token}`, `x"${token}`, `\\${token}`, `\\"${token}"`]) {
      const redacted = redactSecrets({ body: text, list: [text] }, secrets);
      expect(JSON.stringify(redacted)).not.toContain(token);
      expect(redacted.body).toBe(text.replace(token, '[redacted]'));
    }
  });

  it('redacts tokens the platform signed that it did not register, and leaves other issuers alone', () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const platform = `${b64({ alg: 'ES256', typ: 'JWT', kid: 'k1' })}.${b64({ jti: 'j-9', exp: 1_800_000_000 })}.c2ln`;
    const foreign = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'x' })}.c2ln`;
    const redacted = redactSecrets(
      { input: { token: platform, other: foreign }, note: `t=${platform}` },
      newSecretRegistry(),
    );
    expect(redacted).toEqual({
      input: {
        token: { redacted: true, jti: 'j-9', expiresAt: new Date(1_800_000_000_000).toISOString() },
        other: foreign,
      },
      note: 't=[redacted]',
    });
  });

  it('leaves values without a secret untouched (the same object)', () => {
    const value = { a: 1, b: ['x'] };
    expect(redactSecrets(value, secrets)).toBe(value);
    expect(redactSecrets(value, newSecretRegistry())).toBe(value);
    expect(redactSecrets({ a: `x.${token}` }, newSecretRegistry())).toEqual({ a: `x.${token}` });
    expect(redactSecrets(undefined, secrets)).toBeUndefined();
  });
});
