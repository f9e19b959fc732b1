import { createHmac, createPublicKey } from 'node:crypto';
import { CompactSign, importJWK, type JWK } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import {
  type KeyResolver,
  signJwt,
  verificationKeys,
  verifyJwtSignature,
} from '../../functions/shared/auth/jwt';
import {
  CLOCK_SKEW_SECONDS,
  checkV1Claims,
  JWT_MAX_LIFETIME_SECONDS,
} from '../../functions/shared/auth/jwt-claims';
import { generateSigningKey } from '../../functions/shared/auth/signing-keys';

const key = generateSigningKey(new Date('2026-01-01T00:00:00Z'));
const stranger = generateSigningKey(new Date('2026-01-02T00:00:00Z'));
const now = 1_780_000_000;
const claims = { companyId: 'co_1', kind: 'v1', iat: now, exp: now + 300, jti: 'jwt-1', src: 'key_1' };
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const keys = await verificationKeys([key]);

/** A resolver over the key set that records which kids it was asked for. */
const spyKeys = () => vi.fn<KeyResolver>(keys);

const good = await signJwt(claims, key);
const [goodHeader = '', goodPayload = '', goodSignature = ''] = good.split('.');
const publicPem = createPublicKey({ key: key.publicJwk, format: 'jwk' }).export({
  format: 'pem',
  type: 'spki',
});
const hsHeader = b64({ alg: 'HS256', typ: 'JWT', kid: key.kid });
const hs256 = `${hsHeader}.${goodPayload}.${createHmac('sha256', publicPem).update(`${hsHeader}.${goodPayload}`).digest('base64url')}`;

describe('verifyJwtSignature', () => {
  it('accepts a token signed by a key of the set and returns its claims', async () => {
    expect(await verifyJwtSignature(good, keys)).toEqual({ ok: true, claims });
    expect(JSON.parse(Buffer.from(goodHeader, 'base64url').toString())).toEqual({
      alg: 'ES256',
      typ: 'JWT',
      kid: key.kid,
    });
  });

  it.each([
    ['not a JWT', 'abc', 'malformed'],
    ['extra segments', `${good}.${goodSignature}`, 'malformed'],
    ['two segments', `${goodHeader}.${goodPayload}`, 'malformed'],
    ['an empty signature', `${goodHeader}.${goodPayload}.`, 'malformed'],
    ['non-base64url characters', `${goodHeader}.${goodPayload}.${goodSignature.slice(0, -2)}+/`, 'malformed'],
    [
      'a header that is not JSON',
      `${Buffer.from('{alg').toString('base64url')}.${goodPayload}.${goodSignature}`,
      'malformed',
    ],
    ['a header that is a JSON array', `${b64(['ES256'])}.${goodPayload}.${goodSignature}`, 'malformed'],
    ['alg none', `${b64({ alg: 'none', typ: 'JWT', kid: key.kid })}.${goodPayload}.AA`, 'algorithm'],
    ['HS256 signed with the public key as secret', hs256, 'algorithm'],
    [
      'alg ES384',
      `${b64({ alg: 'ES384', typ: 'JWT', kid: key.kid })}.${goodPayload}.${goodSignature}`,
      'algorithm',
    ],
    ['alg absent', `${b64({ typ: 'JWT', kid: key.kid })}.${goodPayload}.${goodSignature}`, 'algorithm'],
    ['typ absent', `${b64({ alg: 'ES256', kid: key.kid })}.${goodPayload}.${goodSignature}`, 'type'],
    [
      'typ JOSE',
      `${b64({ alg: 'ES256', typ: 'JOSE', kid: key.kid })}.${goodPayload}.${goodSignature}`,
      'type',
    ],
    ['kid absent', `${b64({ alg: 'ES256', typ: 'JWT' })}.${goodPayload}.${goodSignature}`, 'unknown_kid'],
    [
      'kid a number',
      `${b64({ alg: 'ES256', typ: 'JWT', kid: 1 })}.${goodPayload}.${goodSignature}`,
      'unknown_kid',
    ],
  ])('refuses %s before any key is looked up', async (_name, token, reason) => {
    const resolve = spyKeys();
    expect(await verifyJwtSignature(token, resolve)).toEqual({ ok: false, reason });
    expect(resolve).not.toHaveBeenCalled();
  });

  it('refuses an unknown kid, a foreign key under a known kid and a tampered payload', async () => {
    const tampered = `${goodHeader}.${b64({ ...claims, companyId: 'co_other' })}.${goodSignature}`;
    expect(await verifyJwtSignature(await signJwt(claims, { ...stranger, kid: 'other' }), keys)).toEqual({
      ok: false,
      reason: 'unknown_kid',
    });
    expect(await verifyJwtSignature(await signJwt(claims, { ...stranger, kid: key.kid }), keys)).toEqual({
      ok: false,
      reason: 'signature',
    });
    expect(await verifyJwtSignature(tampered, keys)).toEqual({ ok: false, reason: 'signature' });
  });

  it.each([
    ['too short', goodSignature.slice(0, -4), 'signature'],
    ['too long', `${goodSignature}AAAA`, 'signature'],
    ['of a length base64url cannot have', `${goodSignature}AAA`, 'malformed'],
  ])('refuses a signature %s', async (_name, signature, reason) => {
    expect(await verifyJwtSignature(`${goodHeader}.${goodPayload}.${signature}`, keys)).toEqual({
      ok: false,
      reason,
    });
  });

  it('refuses a validly signed payload that is not a JSON object', async () => {
    const arrayPayload = await new CompactSign(new TextEncoder().encode('[1]'))
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: key.kid })
      .sign(await importJWK(key.privateJwk as JWK, 'ES256'));
    expect(await verifyJwtSignature(arrayPayload, keys)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('passes on an error of the key resolver (a key set that cannot be read)', async () => {
    const failing: KeyResolver = async () => {
      throw new Error('key set unavailable');
    };
    await expect(verifyJwtSignature(good, failing)).rejects.toThrow('key set unavailable');
  });
});

describe('checkV1Claims on verified claims', () => {
  const verifiedClaims = async (extra: Record<string, unknown>) => {
    const result = await verifyJwtSignature(await signJwt({ ...claims, ...extra }, key), keys);
    if (!result.ok) throw new Error(result.reason);
    return result.claims;
  };
  const check = async (extra: Record<string, unknown>, at = now) =>
    checkV1Claims(await verifiedClaims(extra), '192.0.2.1', at);

  it('applies the clock skew to exp: refused from exp + skew on', async () => {
    expect((await check({ exp: now - CLOCK_SKEW_SECONDS + 1 })).ok).toBe(true);
    expect(await check({ exp: now - CLOCK_SKEW_SECONDS })).toEqual({ ok: false, reason: 'expiry' });
    expect(await check({ exp: now - 600 })).toEqual({ ok: false, reason: 'expiry' });
  });

  it('requires a numeric exp', async () => {
    expect(await check({ exp: undefined })).toEqual({ ok: false, reason: 'expiry' });
    expect(await check({ exp: String(now + 300) })).toEqual({ ok: false, reason: 'expiry' });
    expect(await check({ exp: null })).toEqual({ ok: false, reason: 'expiry' });
  });

  it('applies the clock skew to nbf and refuses a non-numeric nbf', async () => {
    expect((await check({ nbf: now + CLOCK_SKEW_SECONDS })).ok).toBe(true);
    expect(await check({ nbf: now + CLOCK_SKEW_SECONDS + 1 })).toEqual({
      ok: false,
      reason: 'not_yet_valid',
    });
    expect(await check({ nbf: 'now' })).toEqual({ ok: false, reason: 'not_yet_valid' });
  });

  it('requires a numeric iat that is not in the future (beyond the skew)', async () => {
    expect(await check({ iat: undefined })).toEqual({ ok: false, reason: 'lifetime' });
    expect(await check({ iat: 'yesterday' })).toEqual({ ok: false, reason: 'lifetime' });
    expect((await check({ iat: now + CLOCK_SKEW_SECONDS })).ok).toBe(true);
    expect(await check({ iat: now + CLOCK_SKEW_SECONDS + 1, exp: now + 600 })).toEqual({
      ok: false,
      reason: 'lifetime',
    });
  });

  it('refuses a token whose lifetime exceeds the maximum (3600 s, plus the skew)', async () => {
    expect(JWT_MAX_LIFETIME_SECONDS).toBe(3600);
    const max = JWT_MAX_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS;
    expect((await check({ iat: now, exp: now + max })).ok).toBe(true);
    expect(await check({ iat: now, exp: now + max + 1 })).toEqual({ ok: false, reason: 'lifetime' });
    // Ten years ahead: refused although correctly signed.
    expect(await check({ iat: now, exp: now + 10 * 365 * 86_400 })).toEqual({
      ok: false,
      reason: 'lifetime',
    });
    // An old iat cannot stretch the window either: exp may lie at most max seconds from now.
    expect(await check({ iat: now - 100_000, exp: now + 100_000 })).toEqual({
      ok: false,
      reason: 'lifetime',
    });
  });

  it('keeps the kind, companyId, ips and scopes rules', async () => {
    expect(await check({ kind: 'V1' })).toEqual({ ok: false, reason: 'kind' });
    expect(await check({ kind: undefined })).toEqual({ ok: false, reason: 'kind' });
    expect(await check({ companyId: '' })).toEqual({ ok: false, reason: 'company' });
    expect(await check({ ips: [] })).toEqual({ ok: false, reason: 'ips' });
    expect(await check({ ips: ['198.51.100.0/24'] })).toEqual({ ok: false, reason: 'ip_mismatch' });
    expect(await check({ ips: ['192.0.2.0/24'], scopes: ['company:read'] })).toEqual({
      ok: true,
      claims: {
        companyId: 'co_1',
        scopes: ['company:read'],
        tokenId: 'jwt-1',
        source: 'key_1',
        expiresAt: now + 300,
        ips: ['192.0.2.0/24'],
        ancestors: [],
      },
    });
    expect(await check({ anc: ['a', 'b'] })).toMatchObject({ ok: true, claims: { ancestors: ['a', 'b'] } });
    expect(await check({ anc: 'a' })).toEqual({ ok: false, reason: 'source' });
    expect(await check({ anc: Array.from({ length: 9 }, (_, i) => `a${i}`) })).toEqual({
      ok: false,
      reason: 'source',
    });
    expect(await check({ src: undefined })).toEqual({ ok: false, reason: 'source' });
    expect(await check({ jti: undefined })).toEqual({ ok: false, reason: 'source' });
    expect(await check({ src: 'key 1' })).toEqual({ ok: false, reason: 'source' });
    expect(await check({ scopes: ['admin:all'] })).toEqual({ ok: false, reason: 'scopes' });
  });
});
