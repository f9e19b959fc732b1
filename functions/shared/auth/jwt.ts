import type { JsonWebKey } from 'node:crypto';
import {
  type CryptoKey,
  compactVerify,
  decodeProtectedHeader,
  errors,
  importJWK,
  type JWK,
  type ProtectedHeaderParameters,
  SignJWT,
} from 'jose';

/**
 * Compact JWS (JWT) signed with ES256 by the service's own key; `jose` does the JWS work. Verification pins
 * the algorithm (the header must say ES256; `none`, HS256 and everything else are refused), requires the
 * `JWT` type and a known `kid`. The claims are not checked here: `jwt-claims.ts` holds the `/v1` rules
 * (jose's own `exp`/`nbf` checks are not used, so those rules stay in one place).
 */
export const JWT_ALGORITHM = 'ES256';

export interface SigningKey {
  kid: string;
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
  createdAt: string;
}

/** The verification key for a `kid`, or `undefined` when the key set has none by that id. */
export type KeyResolver = (kid: string) => CryptoKey | undefined | Promise<CryptoKey | undefined>;

/** A resolver over a key set: every key not yet retired verifies, so rotation needs no flag day. */
export const verificationKeys = async (
  keys: Pick<SigningKey, 'kid' | 'publicJwk'>[],
): Promise<KeyResolver> => {
  const byKid = new Map<string, CryptoKey>();
  for (const key of keys) {
    byKid.set(key.kid, (await importJWK(key.publicJwk as JWK, JWT_ALGORITHM)) as CryptoKey);
  }
  return (kid) => byKid.get(kid);
};

export const signJwt = async (
  payload: Record<string, unknown>,
  key: Pick<SigningKey, 'kid' | 'privateJwk'>,
): Promise<string> =>
  new SignJWT(payload)
    .setProtectedHeader({ alg: JWT_ALGORITHM, typ: 'JWT', kid: key.kid })
    .sign(await importJWK(key.privateJwk as JWK, JWT_ALGORITHM));

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Three base64url segments: the shape a JWT must have before anything else is tried. */
export const looksLikeJwt = (value: string): boolean => {
  const parts = value.split('.');
  return parts.length === 3 && parts.every((p) => BASE64URL.test(p));
};

/** `typ` compared as a media type, as RFC 7519 asks: `JWT`, `jwt` and `application/jwt` are the same. */
const isJwtType = (typ: unknown): boolean =>
  typeof typ === 'string' && typ.toLowerCase().replace(/^application\//, '') === 'jwt';

export type JwtRefusal = 'malformed' | 'algorithm' | 'type' | 'unknown_kid' | 'signature';

const decodeClaims = (payload: Uint8Array): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(payload));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Verifies structure, type, algorithm, key id and signature; returns the claims, which the caller checks.
 * Everything the header alone decides is refused before `resolveKey` is called, so a malformed or foreign
 * token costs no key loading. Errors other than refusals (a key set that cannot be read) are thrown.
 */
export const verifyJwtSignature = async (
  token: string,
  resolveKey: KeyResolver,
): Promise<{ ok: true; claims: Record<string, unknown> } | { ok: false; reason: JwtRefusal }> => {
  if (!looksLikeJwt(token)) return { ok: false, reason: 'malformed' };
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (header.alg !== JWT_ALGORITHM) return { ok: false, reason: 'algorithm' };
  if (!isJwtType(header.typ)) return { ok: false, reason: 'type' };
  const key = typeof header.kid === 'string' ? await resolveKey(header.kid) : undefined;
  if (!key) return { ok: false, reason: 'unknown_kid' };
  try {
    const { payload } = await compactVerify(token, key, { algorithms: [JWT_ALGORITHM] });
    const claims = decodeClaims(payload);
    return claims ? { ok: true, claims } : { ok: false, reason: 'malformed' };
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: 'signature' };
    if (error instanceof errors.JOSEAlgNotAllowed) return { ok: false, reason: 'algorithm' };
    // JWSInvalid (a segment that does not decode), JOSENotSupported (a `crit` extension we do not know).
    if (error instanceof errors.JWSInvalid || error instanceof errors.JOSENotSupported) {
      return { ok: false, reason: 'malformed' };
    }
    throw error;
  }
};
