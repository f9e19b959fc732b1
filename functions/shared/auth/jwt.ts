import {
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';

/**
 * Compact JWS (JWT) signed with ES256 by the service's own key. Verification pins the algorithm (the header
 * must say ES256; `none`, HS256 and everything else are refused) and requires a known `kid`.
 */
export const JWT_ALGORITHM = 'ES256';

export interface SigningKey {
  kid: string;
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
  createdAt: string;
}

export interface VerificationKeys {
  /** Public keys by `kid`: every key not yet retired verifies, so rotation needs no flag day. */
  byKid: Map<string, KeyObject>;
}

export const verificationKeys = (keys: Pick<SigningKey, 'kid' | 'publicJwk'>[]): VerificationKeys => ({
  byKid: new Map(keys.map((k) => [k.kid, createPublicKey({ key: k.publicJwk, format: 'jwk' })])),
});

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

export const signJwt = (
  payload: Record<string, unknown>,
  key: Pick<SigningKey, 'kid' | 'privateJwk'>,
): string => {
  const header = encode({ alg: JWT_ALGORITHM, typ: 'JWT', kid: key.kid });
  const body = encode(payload);
  const signature = sign('sha256', Buffer.from(`${header}.${body}`), {
    key: createPrivateKey({ key: key.privateJwk, format: 'jwk' }),
    dsaEncoding: 'ieee-p1363',
  });
  return `${header}.${body}.${signature.toString('base64url')}`;
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Three base64url segments: the shape a JWT must have before anything else is tried. */
export const looksLikeJwt = (value: string): boolean => {
  const parts = value.split('.');
  return parts.length === 3 && parts.every((p) => BASE64URL.test(p));
};

const decodeJson = (segment: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

export type JwtRefusal = 'malformed' | 'algorithm' | 'unknown_kid' | 'signature';

/** Verifies structure, algorithm, key id and signature; returns the claims. Claims are checked by the caller. */
export const verifyJwtSignature = (
  token: string,
  keys: VerificationKeys,
): { ok: true; claims: Record<string, unknown> } | { ok: false; reason: JwtRefusal } => {
  if (!looksLikeJwt(token)) return { ok: false, reason: 'malformed' };
  const [headerPart = '', payloadPart = '', signaturePart = ''] = token.split('.');
  const header = decodeJson(headerPart);
  if (!header) return { ok: false, reason: 'malformed' };
  if (header.alg !== JWT_ALGORITHM) return { ok: false, reason: 'algorithm' };
  const key = typeof header.kid === 'string' ? keys.byKid.get(header.kid) : undefined;
  if (!key) return { ok: false, reason: 'unknown_kid' };
  const signature = Buffer.from(signaturePart, 'base64url');
  const valid =
    signature.length === 64 &&
    verify(
      'sha256',
      Buffer.from(`${headerPart}.${payloadPart}`),
      { key, dsaEncoding: 'ieee-p1363' },
      signature,
    );
  if (!valid) return { ok: false, reason: 'signature' };
  const claims = decodeJson(payloadPart);
  return claims ? { ok: true, claims } : { ok: false, reason: 'malformed' };
};
