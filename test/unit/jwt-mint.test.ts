import { describe, expect, it } from 'vitest';
import { verificationKeys, verifyJwtSignature } from '../../functions/shared/auth/jwt';
import { checkV1Claims, ipAllowed } from '../../functions/shared/auth/jwt-claims';
import { JWT_MAX_DURATION_SECONDS, mintJwt } from '../../functions/shared/auth/jwt-mint';
import { generateSigningKey } from '../../functions/shared/auth/signing-keys';
import { AppError } from '../../functions/shared/errors';

const key = generateSigningKey(new Date('2026-01-01T00:00:00Z'));
const now = new Date('2026-06-01T12:00:00Z');
const codeOf = async (fn: () => Promise<unknown>) => {
  try {
    await fn();
    return 'none';
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

describe('mintJwt', () => {
  it('sets kind v1 and a 300 s lifetime by default, and omits scopes when none are asked for', async () => {
    const minted = await mintJwt({ companyId: 'co_1' }, key, now);
    expect(minted.claims).toMatchObject({
      companyId: 'co_1',
      kind: 'v1',
      exp: (minted.claims.iat as number) + 300,
    });
    expect(minted.claims).not.toHaveProperty('scopes');
    const verified = await verifyJwtSignature(minted.token, await verificationKeys([key]));
    expect(verified.ok).toBe(true);
  });

  it('refuses a scopes list without advanced mode', async () => {
    expect(await codeOf(() => mintJwt({ companyId: 'co_1', scopes: ['usage:read'] }, key, now))).toBe(
      'jwt_scopes_require_advanced',
    );
  });

  it('refuses unknown scope names instead of dropping them', async () => {
    expect(
      await codeOf(() =>
        mintJwt({ companyId: 'co_1', scopes: ['usage:read', 'root'], advanced: true }, key, now),
      ),
    ).toBe('jwt_invalid_scopes');
  });

  it('bounds dur and validates ips', async () => {
    expect(
      await codeOf(() => mintJwt({ companyId: 'co_1', dur: JWT_MAX_DURATION_SECONDS + 1 }, key, now)),
    ).toBe('validation_failed');
    expect(await codeOf(() => mintJwt({ companyId: 'co_1', ips: ['10.0.0.0/33'] }, key, now))).toBe(
      'validation_failed',
    );
    expect(
      await codeOf(() => mintJwt({ companyId: 'co_1', ips: ['10.0.0.0/8', '::1'], dur: 60 }, key, now)),
    ).toBe('none');
  });

  it('can sign other kinds, which /v1 then refuses', async () => {
    const minted = await mintJwt({ companyId: 'co_1', kind: 'oauth_connect' }, key, now);
    const result = checkV1Claims(minted.claims, '127.0.0.1', Math.floor(now.getTime() / 1000));
    expect(result).toEqual({ ok: false, reason: 'kind' });
  });
});

describe('ip allow-list', () => {
  it.each([
    [['192.0.2.10'], '192.0.2.10', true],
    [['192.0.2.0/24'], '192.0.2.99', true],
    [['192.0.2.0/24'], '192.0.3.1', false],
    [['2001:db8::/32'], '2001:db8:1::5', true],
    [['2001:db8::/32'], '2001:db9::1', false],
    [['::1'], '::1', true],
    [['192.0.2.10'], 'not-an-ip', false],
    [['bogus'], '192.0.2.10', false],
  ] as const)('%j allows %s: %s', (rules, ip, expected) => {
    expect(ipAllowed([...rules], ip)).toBe(expected);
  });
});
