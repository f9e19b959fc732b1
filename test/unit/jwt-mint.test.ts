import { describe, expect, it } from 'vitest';
import { verificationKeys, verifyJwtSignature } from '../../functions/shared/auth/jwt';
import { checkV1Claims, ipAllowed } from '../../functions/shared/auth/jwt-claims';
import {
  ipRuleWithin,
  JWT_MAX_DURATION_SECONDS,
  type MintSource,
  mintJwt,
} from '../../functions/shared/auth/jwt-mint';

const OPERATOR = { kind: 'operator' } as const;

import { generateSigningKey } from '../../functions/shared/auth/signing-keys';
import { AppError } from '../../functions/shared/errors';
import { StepOutcomeError } from '../../functions/shared/step-outcomes';

const key = generateSigningKey(new Date('2026-01-01T00:00:00Z'));
const now = new Date('2026-06-01T12:00:00Z');
const codeOf = async (fn: () => Promise<unknown>) => {
  try {
    await fn();
    return 'none';
  } catch (error) {
    return error instanceof AppError || error instanceof StepOutcomeError ? error.code : String(error);
  }
};

describe('mintJwt', () => {
  it('sets kind v1 and a 300 s lifetime by default, and omits scopes when none are asked for', async () => {
    const minted = await mintJwt({ companyId: 'co_1', source: OPERATOR }, key, now);
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
    expect(
      await codeOf(() => mintJwt({ companyId: 'co_1', source: OPERATOR, scopes: ['usage:read'] }, key, now)),
    ).toBe('jwt_scopes_require_advanced');
  });

  it('refuses unknown scope names instead of dropping them', async () => {
    expect(
      await codeOf(() =>
        mintJwt(
          { companyId: 'co_1', source: OPERATOR, scopes: ['usage:read', 'root'], advanced: true },
          key,
          now,
        ),
      ),
    ).toBe('jwt_invalid_scopes');
  });

  it('bounds dur and validates ips', async () => {
    expect(
      await codeOf(() =>
        mintJwt({ companyId: 'co_1', source: OPERATOR, dur: JWT_MAX_DURATION_SECONDS + 1 }, key, now),
      ),
    ).toBe('validation_failed');
    expect(
      await codeOf(() => mintJwt({ companyId: 'co_1', source: OPERATOR, ips: ['10.0.0.0/33'] }, key, now)),
    ).toBe('validation_failed');
    expect(
      await codeOf(() =>
        mintJwt({ companyId: 'co_1', source: OPERATOR, ips: ['10.0.0.0/8', '::1'], dur: 60 }, key, now),
      ),
    ).toBe('none');
  });

  it('can sign other kinds, which /v1 then refuses', async () => {
    const minted = await mintJwt({ companyId: 'co_1', source: OPERATOR, kind: 'oauth_connect' }, key, now);
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

describe('derived tokens', () => {
  const iat = Math.floor(now.getTime() / 1000);
  const fromKey: MintSource = { kind: 'api_key', keyId: 'key_01', scopes: ['usage:read', 'workflows:run'] };
  const fromToken: MintSource = {
    kind: 'jwt',
    jti: 'parent',
    src: 'key_01',
    exp: iat + 120,
    ips: ['127.0.0.1'],
    scopes: ['usage:read', 'workflows:run'],
  };

  it('name the API key they come from, and keep its one-hour cap', async () => {
    const minted = await mintJwt({ companyId: 'co_1', source: fromKey, dur: 3600 }, key, now);
    expect(minted.claims).toMatchObject({ src: 'key_01', exp: iat + 3600, jti: minted.jti });
    expect(minted.claims).not.toHaveProperty('ips');
  });

  it('inherit the addresses and expiry of a limited API key, and never outlive it', async () => {
    const limited: MintSource = { ...fromKey, exp: iat + 90, ips: ['10.0.0.0/8'] };
    const minted = await mintJwt({ companyId: 'co_1', source: limited, dur: 3600 }, key, now);
    expect(minted.claims).toMatchObject({ src: 'key_01', exp: iat + 90, ips: ['10.0.0.0/8'] });
    await expect(
      mintJwt({ companyId: 'co_1', source: limited, ips: ['192.0.2.1'] }, key, now),
    ).rejects.toMatchObject({ code: 'jwt_ips_exceed_caller' });
    await expect(
      mintJwt({ companyId: 'co_1', source: { ...limited, exp: iat - 1 } }, key, now),
    ).rejects.toMatchObject({ code: 'jwt_source_expired' });
  });

  it('carry the root of a token down the chain, and never outlive it', async () => {
    const minted = await mintJwt({ companyId: 'co_1', source: fromToken, dur: 3600 }, key, now);
    expect(minted.claims).toMatchObject({ src: 'key_01', exp: iat + 120, ips: ['127.0.0.1'] });
    expect(minted.expiresAt).toBe(new Date((iat + 120) * 1000).toISOString());
    const grandchild = await mintJwt(
      {
        companyId: 'co_1',
        source: { ...fromToken, jti: minted.jti, exp: iat + 60 },
        dur: 600,
      },
      key,
      now,
    );
    expect(grandchild.claims).toMatchObject({ src: 'key_01', exp: iat + 60 });
  });

  it('name every token between the root and them, up to eight', async () => {
    const child = await mintJwt({ companyId: 'co_1', source: fromToken }, key, now);
    expect(child.claims.anc).toEqual(['parent']);
    const grandchild = await mintJwt(
      { companyId: 'co_1', source: { ...fromToken, jti: child.jti, anc: ['parent'] } },
      key,
      now,
    );
    expect(grandchild.claims.anc).toEqual(['parent', child.jti]);
    expect((await mintJwt({ companyId: 'co_1', source: fromKey }, key, now)).claims).not.toHaveProperty(
      'anc',
    );
    const deep = { ...fromToken, anc: Array.from({ length: 8 }, (_, i) => `a${i}`) };
    expect(await codeOf(() => mintJwt({ companyId: 'co_1', source: deep }, key, now))).toBe(
      'jwt_derivation_too_deep',
    );
  });

  it('make an operator-minted token the root of its own chain', async () => {
    const minted = await mintJwt({ companyId: 'co_1', source: OPERATOR }, key, now);
    expect(minted.src).toBe(`jti:${minted.jti}`);
  });

  it("accept ips inside the caller's and refuse any outside", async () => {
    const inside = await mintJwt(
      { companyId: 'co_1', source: { ...fromToken, ips: ['10.0.0.0/8'] }, ips: ['10.1.2.0/24', '10.9.9.9'] },
      key,
      now,
    );
    expect(inside.claims.ips).toEqual(['10.1.2.0/24', '10.9.9.9']);
    const caller: MintSource = { ...fromToken, ips: ['10.0.0.0/8', '127.0.0.1'] };
    const codeFor = (ips: string[]) =>
      codeOf(() => mintJwt({ companyId: 'co_1', source: caller, ips }, key, now));
    expect(await codeFor(['127.0.0.1', '10.0.0.0/9'])).toBe('none');
    for (const ips of [['0.0.0.0/0'], ['127.0.0.1', '127.0.0.2'], ['::1'], ['10.0.0.0/7']]) {
      expect(await codeFor(ips), ips.join(',')).toBe('jwt_ips_exceed_caller');
    }
  });

  it('refuse scopes the caller lacks, and a caller that has expired', async () => {
    expect(
      await codeOf(() =>
        mintJwt({ companyId: 'co_1', source: fromKey, scopes: ['dynadata:write'], advanced: true }, key, now),
      ),
    ).toBe('jwt_scopes_exceed_caller');
    expect(
      await codeOf(() => mintJwt({ companyId: 'co_1', source: { ...fromToken, exp: iat } }, key, now)),
    ).toBe('jwt_source_expired');
  });
});

describe('ip rule containment', () => {
  it.each([
    ['10.1.0.0/16', '10.0.0.0/8', true],
    ['10.0.0.0/8', '10.0.0.0/8', true],
    ['10.0.0.0/7', '10.0.0.0/8', false],
    ['11.0.0.1', '10.0.0.0/8', false],
    ['::ffff:a01:101', '10.0.0.0/8', true],
    ['2001:db8:1::/48', '2001:db8::/32', true],
    ['2001:db8::/31', '2001:db8::/32', false],
    ['10.0.0.1', '::/0', false],
    ['::10.1.2.3', '10.0.0.0/8', false],
    ['::0.0.0.0/96', '0.0.0.0/0', false],
    ['bogus', '10.0.0.0/8', false],
  ] as const)('%s within %s: %s', (inner, outer, expected) => {
    expect(ipRuleWithin(inner, outer)).toBe(expected);
  });
});
