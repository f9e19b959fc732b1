import { randomUUID } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors';
import { StepOutcomeError } from '../step-outcomes';
import { isScope } from '../types/scopes';
import { type SigningKey, signJwt } from './jwt';
import { CLOCK_SKEW_SECONDS, JWT_MAX_LIFETIME_SECONDS, MAX_ANCESTORS, parseIpRule } from './jwt-claims';

/**
 * Token minting: the one set of rules behind the workflow action `actions/security/auth/jwt/generate` and the
 * operator CLI (`domain/tokens.ts` signs with the current key and records the token). Payload
 * `{companyId, ips?, dur?, scopes?}`; `kind` is always set (default `v1`: the service signs tokens for other
 * purposes too, and `/v1` accepts only `v1`).
 *
 * A token minted for a caller never outlives or outreaches that caller (the `source`):
 * - scopes: a subset of the caller's (`jwt_scopes_exceed_caller`);
 * - `ips`: the caller's own list is inherited, and an explicit list must lie inside it
 *   (`jwt_ips_exceed_caller`);
 * - `exp`: at most the caller's own `exp` (an API key has none: the one-hour cap applies);
 * - `src`: the root credential, carried down every chain of derived tokens: the API key id (`key_…`) or, for a
 *   token the operator minted, `jti:<its own jti>`; `anc`: the ids of the tokens between the root and this
 *   one (at most `MAX_ANCESTORS`). The authorizer refuses a token whose `jti`, `src` or any ancestor is
 *   revoked (`data/credentials.ts`), so revoking a key or a token ends every token derived from it.
 */

export const JWT_DEFAULT_DURATION_SECONDS = 300;
/** Tokens are minted per run and expire in minutes: one hour is the most a caller may ask for. */
export const JWT_MAX_DURATION_SECONDS = JWT_MAX_LIFETIME_SECONDS;

/** Who asks for the token: the operator (a root), or the credential that started a workflow run. */
export type MintSource =
  | { kind: 'operator' }
  | {
      kind: 'api_key';
      keyId: string;
      scopes: readonly string[];
      /** The key's expiry (epoch seconds) and addresses, when it has them: a token inherits both. */
      exp?: number;
      ips?: readonly string[];
    }
  | {
      kind: 'jwt';
      jti: string;
      /** The caller's own root credential (`src` claim). */
      src: string;
      /** The caller's ancestors (`anc` claim): the tokens between the root and the caller. */
      anc?: readonly string[];
      /** The caller's `exp` (epoch seconds). */
      exp: number;
      ips?: readonly string[];
      scopes: readonly string[];
    };

export interface MintInput {
  companyId: string;
  source: MintSource;
  ips?: string[];
  dur?: number;
  scopes?: string[];
  /** The workflow action's advanced mode: only then may a scopes list be requested. */
  advanced?: boolean;
  kind?: string;
}

export interface MintedToken {
  token: string;
  kid: string;
  kind: string;
  jti: string;
  /** The root credential the token names (`src`). */
  src: string;
  expiresAt: string;
  claims: Record<string, unknown>;
}

const refuseScopes = (input: MintInput): void => {
  if (input.scopes === undefined) return;
  if (!input.advanced) {
    throw new AppError(
      'jwt_scopes_require_advanced',
      'A scopes list can be requested only in advanced mode.',
    );
  }
  const unknown = input.scopes.filter((s) => !isScope(s));
  if (unknown.length > 0 || input.scopes.length === 0) {
    throw new AppError(
      'jwt_invalid_scopes',
      `Unknown scope names: ${unknown.join(', ') || '(empty list)'}.`,
      {
        extensions: { invalidScopes: unknown },
      },
    );
  }
  if (input.source.kind === 'operator') return;
  const callerScopes = input.source.scopes;
  const wider = input.scopes.filter((s) => !callerScopes.includes(s));
  if (wider.length > 0) {
    throw new StepOutcomeError(
      'jwt_scopes_exceed_caller',
      `The credential that started the run does not hold: ${wider.join(', ')}.`,
    );
  }
};

/** The range an allow-list entry covers, as `ipaddr.js` matches it. */
const rangeOf = (rule: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined => {
  const parsed = parseIpRule(rule);
  // An IPv6 address written with a dotted IPv4 tail (`::10.1.2.3`) is read one way here and another by the
  // authorizer's `BlockList`: such a rule is never taken to lie inside another.
  if (!parsed || (parsed.family === 'ipv6' && parsed.address.includes('.'))) return undefined;
  const address = ipaddr.parse(parsed.address);
  // An IPv4-mapped IPv6 rule is the IPv4 range it maps, as the authorizer checks it.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && parsed.prefix >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), parsed.prefix - 96];
  }
  return [address, parsed.prefix];
};

/** True when every address `inner` covers is covered by `outer` (same family, no shorter prefix). */
export const ipRuleWithin = (inner: string, outer: string): boolean => {
  const a = rangeOf(inner);
  const b = rangeOf(outer);
  if (!a || !b || a[1] < b[1]) return false;
  const [address, outerAddress] = [a[0], b[0]];
  if (address.kind() === 'ipv4' && outerAddress.kind() === 'ipv4') {
    return (address as ipaddr.IPv4).match(outerAddress as ipaddr.IPv4, b[1]);
  }
  if (address.kind() === 'ipv6' && outerAddress.kind() === 'ipv6') {
    return (address as ipaddr.IPv6).match(outerAddress as ipaddr.IPv6, b[1]);
  }
  return false;
};

const allowedIps = (input: MintInput): string[] | undefined => {
  const badIps = (input.ips ?? []).filter((ip) => !parseIpRule(ip));
  if (badIps.length > 0 || (input.ips !== undefined && input.ips.length === 0)) {
    throw new AppError('validation_failed', `Invalid ips entries: ${badIps.join(', ') || '(empty list)'}.`, {
      errors: [{ pointer: '/ips', message: 'addresses or CIDR blocks, IPv4 or IPv6' }],
    });
  }
  // Rules are kept as the authorizer reads them (trimmed).
  const requested = input.ips?.map((ip) => ip.trim());
  const callerIps = input.source.kind === 'operator' ? undefined : input.source.ips;
  if (!callerIps) return requested;
  if (!requested) return [...callerIps];
  const outside = requested.filter((ip) => !callerIps.some((outer) => ipRuleWithin(ip, outer)));
  if (outside.length > 0) {
    throw new StepOutcomeError(
      'jwt_ips_exceed_caller',
      `The credential that started the run is limited to ${callerIps.join(', ')}; outside it: ${outside.join(', ')}.`,
    );
  }
  return requested;
};

const lifetime = (input: MintInput, iat: number): number => {
  const dur = input.dur ?? JWT_DEFAULT_DURATION_SECONDS;
  if (!Number.isInteger(dur) || dur < 1 || dur > JWT_MAX_DURATION_SECONDS) {
    throw new AppError(
      'validation_failed',
      `dur must be an integer from 1 to ${JWT_MAX_DURATION_SECONDS} seconds.`,
      {
        errors: [{ pointer: '/dur', message: `1 to ${JWT_MAX_DURATION_SECONDS}` }],
      },
    );
  }
  if (input.source.kind === 'operator' || input.source.exp === undefined) return dur;
  const left = input.source.exp - iat;
  if (left < 1) {
    throw new StepOutcomeError(
      'jwt_source_expired',
      'The credential that started the run has expired: no token can be derived from it.',
    );
  }
  return Math.min(dur, left);
};

/** The ancestors of a token minted for `source`: the caller's own, then the caller. */
const ancestorsOf = (source: MintSource): string[] => {
  if (source.kind !== 'jwt') return [];
  const anc = [...(source.anc ?? []), source.jti];
  if (anc.length > MAX_ANCESTORS) {
    throw new StepOutcomeError(
      'jwt_derivation_too_deep',
      `The token that started the run is already ${MAX_ANCESTORS} derivations from its root: no token can be derived from it.`,
    );
  }
  return anc;
};

const rootOf = (source: MintSource, jti: string): string => {
  if (source.kind === 'api_key') return source.keyId;
  if (source.kind === 'jwt') return source.src;
  return `jti:${jti}`;
};

export const mintJwt = async (input: MintInput, key: SigningKey, now: Date): Promise<MintedToken> => {
  refuseScopes(input);
  if (input.companyId === '') throw new AppError('validation_failed', 'companyId is required.');
  const iat = Math.floor(now.getTime() / 1000);
  const dur = lifetime(input, iat);
  const ips = allowedIps(input);
  const kind = input.kind ?? 'v1';
  const jti = randomUUID();
  const src = rootOf(input.source, jti);
  const anc = ancestorsOf(input.source);
  const claims: Record<string, unknown> = {
    companyId: input.companyId,
    kind,
    iat,
    exp: iat + dur,
    jti,
    src,
    ...(anc.length > 0 ? { anc } : {}),
    ...(ips ? { ips } : {}),
    ...(input.scopes ? { scopes: input.scopes } : {}),
  };
  return {
    token: await signJwt(claims, key),
    kid: key.kid,
    kind,
    jti,
    src,
    expiresAt: new Date((iat + dur) * 1000).toISOString(),
    claims,
  };
};

/** How long a record about a token must be kept: until it can no longer be accepted. */
export const acceptedUntilSeconds = (exp: number): number => exp + CLOCK_SKEW_SECONDS;
