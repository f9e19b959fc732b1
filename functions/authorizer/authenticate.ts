import { type JwtRefusal, type KeyResolver, verificationKeys, verifyJwtSignature } from '../shared/auth/jwt';
import { type ClaimRefusal, checkV1Claims, ipAllowed } from '../shared/auth/jwt-claims';
import { forgetPublicKeySet, loadPublicKeySet, type PublicKeySet } from '../shared/auth/signing-keys';
import { API_KEY_PATTERN, findApiKeyBySecret, touchApiKey } from '../shared/data/api-keys';
import { revokedCredentials } from '../shared/data/credentials';
import { env } from '../shared/env';
import { logger } from '../shared/observability/logger';
import { createTtlCache } from '../shared/ttl-cache';
import type { AuthContext } from '../shared/types/auth';
import { MAX_CREDENTIAL_LENGTH, type PresentedCredential } from './credentials';
import { credentialCacheKey } from './decision-cache';

/** Why a credential was refused; logged, never shown to the caller (every refusal is the same 401). */
export type Refusal =
  | 'missing'
  | 'ambiguous'
  | 'oversized'
  | 'malformed'
  | 'unknown'
  | 'revoked'
  | 'expired'
  | 'ip_mismatch'
  | JwtRefusal
  | ClaimRefusal;

export type AuthOutcome = { ok: true; auth: AuthContext } | { ok: false; reason: Refusal };

const authenticateApiKey = async (value: string, now: number): Promise<AuthOutcome> => {
  // Structurally invalid keys are refused without a database request.
  if (!API_KEY_PATTERN.test(value)) return { ok: false, reason: 'malformed' };
  const key = await findApiKeyBySecret(value);
  if (!key) return { ok: false, reason: 'unknown' };
  if (key.revokedAt) return { ok: false, reason: 'revoked' };
  // Read once per cache TTL per instance: `lastUsedAt` is written at most once in its resolution.
  await touchApiKey(value, key, new Date(now)).catch((error: unknown) =>
    logger.warn('lastUsedAt of an API key not written', { keyId: key.keyId, error }),
  );
  return {
    ok: true,
    auth: {
      companyId: key.companyId,
      authMethod: 'api_key',
      keyId: key.keyId,
      scopes: key.scopes,
      source: key.keyId,
      // A key's limits travel like a token's: checked on every request, inherited by what it creates.
      ...(key.expiresAt === undefined
        ? {}
        : { tokenExpiresAt: Math.floor(Date.parse(key.expiresAt) / 1000) }),
      ...(key.ips === undefined ? {} : { tokenIps: key.ips }),
    },
  };
};

/** A key's expiry and addresses, checked on every request (a cached decision included). */
const keyLimits = (outcome: AuthOutcome, sourceIp: string, now: number): AuthOutcome => {
  if (!outcome.ok) return outcome;
  const { tokenExpiresAt, tokenIps } = outcome.auth;
  if (tokenExpiresAt !== undefined && tokenExpiresAt * 1000 <= now) return { ok: false, reason: 'expired' };
  if (tokenIps !== undefined && !ipAllowed(tokenIps, sourceIp)) return { ok: false, reason: 'ip_mismatch' };
  return outcome;
};

/** Decisions that needed the database, per warm Lambda instance (structural refusals are cheap anyway). */
const decisions = createTtlCache<AuthOutcome>(env().authorizerCacheTtlSeconds * 1000);

let jwtKeys: KeyResolver | undefined;
let resolvedFrom: PublicKeySet | undefined;
let keysLoadedAt = 0;
const KEY_RELOAD_INTERVAL_MS = 60_000;

/**
 * The verification key for a `kid`, from the public key set (never the signing keys) loaded on first use. A
 * key added by a rotation after this instance loaded the set is unknown here: reload it, at most once a minute.
 */
const resolveJwtKey = async (kid: string, now: number) => {
  // The set is read again once it is `KEY_SET_MAX_AGE_MS` old, so a key dropped from it stops verifying.
  const set = await loadPublicKeySet();
  if (!jwtKeys || set !== resolvedFrom) {
    jwtKeys = await verificationKeys(set.keys);
    resolvedFrom = set;
  }
  const key = await jwtKeys(kid);
  if (key || now - keysLoadedAt <= KEY_RELOAD_INTERVAL_MS) return key;
  keysLoadedAt = now;
  forgetPublicKeySet();
  const reloaded = await loadPublicKeySet();
  jwtKeys = await verificationKeys(reloaded.keys);
  resolvedFrom = reloaded;
  return jwtKeys(kid);
};

/**
 * Whether a credential id (a token's `jti` or `src`) is revoked, per warm instance for the cache TTL: a
 * revocation takes effect within `AUTHORIZER_CACHE_TTL_SECONDS`, as a revoked API key does.
 */
const revocations = createTtlCache<boolean>(env().authorizerCacheTtlSeconds * 1000);

const anyRevoked = async (companyId: string, ids: string[], now: number): Promise<boolean> => {
  const cacheKey = (id: string) => `${companyId}\u0000${id}`;
  const unknown = ids.filter((id) => revocations.get(cacheKey(id), now) === undefined);
  if (unknown.length > 0) {
    const revoked = await revokedCredentials(companyId, unknown);
    for (const id of unknown) revocations.set(cacheKey(id), revoked.has(id), now);
  }
  return ids.some((id) => revocations.get(cacheKey(id), now) === true);
};

/**
 * Service-signed tokens: the signature and claims are verified locally; the token's id and root credential
 * are checked against the revocations (one batch read, cached like the API key decisions).
 */
const authenticateJwt = async (token: string, sourceIp: string, now: number): Promise<AuthOutcome> => {
  // Keys are loaded only for a token whose shape and header pass: malformed ones cost no key or database work.
  const verified = await verifyJwtSignature(token, (kid) => resolveJwtKey(kid, now));
  if (!verified.ok) return verified;
  const checked = checkV1Claims(verified.claims, sourceIp, Math.floor(now / 1000));
  if (!checked.ok) return checked;
  const { companyId, scopes, tokenId, source, expiresAt, ips, ancestors } = checked.claims;
  // The token, its root credential and every token between them: revoking any of them ends this one.
  if (await anyRevoked(companyId, [tokenId, source, ...ancestors], now))
    return { ok: false, reason: 'revoked' };
  return {
    ok: true,
    auth: {
      companyId,
      authMethod: 'jwt',
      keyId: tokenId,
      scopes,
      source,
      tokenExpiresAt: expiresAt,
      ...(ips ? { tokenIps: ips } : {}),
      ...(ancestors.length > 0 ? { tokenAncestors: ancestors } : {}),
    },
  };
};

export const authenticate = async (
  credential: PresentedCredential | undefined,
  sourceIp: string,
  now: number = Date.now(),
): Promise<AuthOutcome> => {
  if (!credential || credential.value === '') return { ok: false, reason: 'missing' };
  if (credential.value.length > MAX_CREDENTIAL_LENGTH) return { ok: false, reason: 'oversized' };
  if (credential.kind === 'api_key') {
    const key = credentialCacheKey('api_key', credential.value);
    const cached = decisions.get(key, now);
    if (cached) return keyLimits(cached, sourceIp, now);
    const outcome = await authenticateApiKey(credential.value, now);
    if (outcome.ok || outcome.reason !== 'malformed') decisions.set(key, outcome, now);
    return keyLimits(outcome, sourceIp, now);
  }
  return authenticateJwt(credential.value, sourceIp, now);
};
