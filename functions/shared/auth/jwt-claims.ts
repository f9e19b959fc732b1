import { BlockList, isIP } from 'node:net';
import { isScope, type Scope } from '../types/scopes';

/** Allowance for clocks that disagree, applied to `exp`, `nbf`, `iat` and the lifetime. */
export const CLOCK_SKEW_SECONDS = 30;

/** Tokens are minted per run and expire in minutes: one hour is the longest lifetime a token may have. */
export const JWT_MAX_LIFETIME_SECONDS = 3600;

export type ClaimRefusal =
  | 'kind'
  | 'expiry'
  | 'lifetime'
  | 'not_yet_valid'
  | 'company'
  | 'ips'
  | 'ip_mismatch'
  | 'scopes'
  | 'source';

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The lifetime rule: `iat` is required and not in the future, `exp - iat` is at most the maximum, and `exp`
 * lies at most the maximum from now (each with the skew), so a correctly signed token can never live longer
 * than minting allows, whatever its claims say.
 */
const lifetimeAllowed = (iat: unknown, exp: number, nowSeconds: number): boolean => {
  const longest = JWT_MAX_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS;
  if (!isNumber(iat) || iat > nowSeconds + CLOCK_SKEW_SECONDS) return false;
  return exp - iat <= longest && exp - nowSeconds <= longest;
};

export interface V1Claims {
  companyId: string;
  /** `undefined` when the token carries no `scopes` claim: it authenticates but holds no scope. */
  scopes: Scope[];
  tokenId: string;
  /** The root credential the token was derived from (`src`: an API key id or `jti:<root token id>`). */
  source: string;
  /** `exp`, epoch seconds: a token derived from this one expires no later. */
  expiresAt: number;
  /** The `ips` allow-list, inherited by a token derived from this one. */
  ips?: string[];
  /** The tokens between the root and this one (`anc`), each refused with it when revoked. */
  ancestors: string[];
}

/** The most ancestors (`anc`) a token may name: minting refuses to derive past it. */
export const MAX_ANCESTORS = 8;

/** `src` and `jti` name credentials in revocation records: short printable text only. */
const CREDENTIAL_ID = /^[\x21-\x7e]{1,80}$/;

/** Parses one allow-list entry: an IPv4/IPv6 address or a CIDR block. */
export const parseIpRule = (
  rule: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined => {
  const [address = '', prefixText, ...rest] = rule.trim().split('/');
  if (rest.length > 0) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, family } : undefined;
};

export const ipAllowed = (rules: string[], sourceIp: string): boolean => {
  const list = new BlockList();
  for (const rule of rules) {
    const parsed = parseIpRule(rule);
    if (!parsed) return false;
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  const version = isIP(sourceIp);
  if (version === 0) return false;
  return list.check(sourceIp, version === 4 ? 'ipv4' : 'ipv6');
};

/**
 * The claim rules of `/v1`: `kind` must be exactly the string `v1`; `exp` and `iat` are required and the
 * lifetime is at most `JWT_MAX_LIFETIME_SECONDS` (plus the skew); `nbf` is honoured;
 * `ips` is checked against the gateway's source IP (never a forwarded header); `scopes` must name known scopes;
 * `jti` and `src` (the root credential, `jwt-mint.ts`) are required, so every accepted token can be revoked.
 */
export const checkV1Claims = (
  claims: Record<string, unknown>,
  sourceIp: string,
  nowSeconds: number,
): { ok: true; claims: V1Claims } | { ok: false; reason: ClaimRefusal } => {
  if (typeof claims.kind !== 'string' || claims.kind !== 'v1') return { ok: false, reason: 'kind' };
  if (!isNumber(claims.exp)) return { ok: false, reason: 'expiry' };
  if (nowSeconds >= claims.exp + CLOCK_SKEW_SECONDS) return { ok: false, reason: 'expiry' };
  if (!lifetimeAllowed(claims.iat, claims.exp, nowSeconds)) return { ok: false, reason: 'lifetime' };
  if (claims.nbf !== undefined) {
    if (typeof claims.nbf !== 'number' || claims.nbf > nowSeconds + CLOCK_SKEW_SECONDS) {
      return { ok: false, reason: 'not_yet_valid' };
    }
  }
  const { companyId } = claims;
  if (typeof companyId !== 'string' || companyId === '' || companyId.length > 64) {
    return { ok: false, reason: 'company' };
  }
  if (claims.ips !== undefined) {
    if (
      !Array.isArray(claims.ips) ||
      claims.ips.length === 0 ||
      !claims.ips.every((i) => typeof i === 'string')
    ) {
      return { ok: false, reason: 'ips' };
    }
    if (!ipAllowed(claims.ips as string[], sourceIp)) return { ok: false, reason: 'ip_mismatch' };
  }
  let scopes: Scope[] = [];
  if (claims.scopes !== undefined) {
    if (!Array.isArray(claims.scopes) || !claims.scopes.every((s) => typeof s === 'string' && isScope(s))) {
      return { ok: false, reason: 'scopes' };
    }
    scopes = claims.scopes as Scope[];
  }
  // Every token the platform mints names its own id and its root credential, so both can be revoked.
  const { jti, src } = claims;
  if (
    typeof jti !== 'string' ||
    !CREDENTIAL_ID.test(jti) ||
    typeof src !== 'string' ||
    !CREDENTIAL_ID.test(src)
  ) {
    return { ok: false, reason: 'source' };
  }
  const anc = claims.anc ?? [];
  if (
    !Array.isArray(anc) ||
    anc.length > MAX_ANCESTORS ||
    !anc.every((id) => typeof id === 'string' && CREDENTIAL_ID.test(id))
  ) {
    return { ok: false, reason: 'source' };
  }
  return {
    ok: true,
    claims: {
      companyId,
      scopes,
      tokenId: jti,
      source: src,
      expiresAt: claims.exp,
      ancestors: anc as string[],
      ...(claims.ips === undefined ? {} : { ips: claims.ips as string[] }),
    },
  };
};
