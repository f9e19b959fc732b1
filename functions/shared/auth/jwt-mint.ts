import { randomUUID } from 'node:crypto';
import { AppError } from '../errors';
import { isScope } from '../types/scopes';
import { type SigningKey, signJwt } from './jwt';
import { JWT_MAX_LIFETIME_SECONDS, parseIpRule } from './jwt-claims';

/**
 * Token minting, the one module behind the workflow action `actions/security/auth/jwt/generate` and the
 * operator CLI. Payload `{companyId, ips?, dur?, scopes?}`; `kind` is always set (default `v1`: the service
 * signs tokens for other purposes too, and `/v1` accepts only `v1`).
 */
export const JWT_DEFAULT_DURATION_SECONDS = 300;
/** Tokens are minted per run and expire in minutes: one hour is the most a caller may ask for. */
export const JWT_MAX_DURATION_SECONDS = JWT_MAX_LIFETIME_SECONDS;

export interface MintInput {
  companyId: string;
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
  expiresAt: string;
  claims: Record<string, unknown>;
}

export const mintJwt = async (input: MintInput, key: SigningKey, now: Date): Promise<MintedToken> => {
  if (input.scopes !== undefined) {
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
  }
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
  const badIps = (input.ips ?? []).filter((ip) => !parseIpRule(ip));
  if (badIps.length > 0 || (input.ips !== undefined && input.ips.length === 0)) {
    throw new AppError('validation_failed', `Invalid ips entries: ${badIps.join(', ') || '(empty list)'}.`, {
      errors: [{ pointer: '/ips', message: 'addresses or CIDR blocks, IPv4 or IPv6' }],
    });
  }
  if (input.companyId === '') throw new AppError('validation_failed', 'companyId is required.');
  const iat = Math.floor(now.getTime() / 1000);
  const kind = input.kind ?? 'v1';
  const claims: Record<string, unknown> = {
    companyId: input.companyId,
    kind,
    iat,
    exp: iat + dur,
    jti: randomUUID(),
    ...(input.ips ? { ips: input.ips } : {}),
    ...(input.scopes ? { scopes: input.scopes } : {}),
  };
  return {
    token: await signJwt(claims, key),
    kid: key.kid,
    kind,
    expiresAt: new Date((iat + dur) * 1000).toISOString(),
    claims,
  };
};
