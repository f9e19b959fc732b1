import { CLOCK_SKEW_SECONDS, JWT_MAX_LIFETIME_SECONDS } from '../auth/jwt-claims';
import { ipRuleWithin } from '../auth/jwt-mint';
import {
  ApiKeyLimitReachedError,
  ApiKeyNotFoundError,
  type ApiKeyRecord,
  apiKeyPosition,
  createApiKey,
  findApiKey,
  listApiKeyPage,
  type NewApiKey,
  revokeApiKey,
} from '../data/api-keys';
import { AppError, NotFoundError, ValidationError } from '../errors';
import type { AuthContext } from '../types/auth';
import type { Scope } from '../types/scopes';
import { listCursor, MAX_LIST_PAGE, type PageRequest } from './pages';

/**
 * A company's API keys, managed by the company itself (`/v1/keys`, scope `keys:admin`) and by the operator
 * (`admin keys …`): both go through these functions. A key created by a caller is never more than the
 * caller: its scopes a subset of the caller's, its addresses inside the caller's allow-list, and it expires
 * no later than the caller does (a key or token that expires). Absent addresses or expiry are inherited.
 */

/** The key as the API shows it: never the secret nor its hash. */
export const toPublicApiKey = (key: ApiKeyRecord, now: Date) => ({
  id: key.keyId,
  name: key.name,
  scopes: key.scopes,
  hint: key.hint,
  status: key.revokedAt
    ? ('revoked' as const)
    : key.expiresAt !== undefined && key.expiresAt <= now.toISOString()
      ? ('expired' as const)
      : ('active' as const),
  createdAt: key.createdAt,
  createdBy: key.createdBy ?? 'operator',
  expiresAt: key.expiresAt ?? null,
  ips: key.ips ?? null,
  lastUsedAt: key.lastUsedAt ?? null,
  revokedAt: key.revokedAt ?? null,
});

/** Who asks for a key: the operator (no bounds), or an authenticated caller of the API. */
export type KeyIssuer = { kind: 'operator' } | { kind: 'caller'; auth: AuthContext };

export interface ApiKeyRequest {
  name: string;
  scopes: Scope[];
  expiresAt?: string | undefined;
  ips?: string[] | undefined;
}

/** The caller's own bounds: scopes, addresses and expiry that a key it creates may not exceed. */
const boundedByCaller = (request: ApiKeyRequest, auth: AuthContext): NewApiKey => {
  const wider = request.scopes.filter((scope) => !auth.scopes.includes(scope));
  if (wider.length > 0) {
    throw new AppError(
      'api_key_scopes_exceed_caller',
      `A key cannot hold scopes its creator lacks: ${wider.join(', ')}.`,
      { extensions: { scopes: wider } },
    );
  }
  const callerIps = auth.tokenIps;
  const outside = callerIps
    ? (request.ips ?? []).filter((ip) => !callerIps.some((outer) => ipRuleWithin(ip, outer)))
    : [];
  if (outside.length > 0) {
    throw new AppError(
      'api_key_ips_exceed_caller',
      `The creating credential is limited to ${callerIps?.join(', ')}; outside it: ${outside.join(', ')}.`,
      { extensions: { ips: outside } },
    );
  }
  const callerExpiry =
    auth.tokenExpiresAt === undefined ? undefined : new Date(auth.tokenExpiresAt * 1000).toISOString();
  if (callerExpiry !== undefined && request.expiresAt !== undefined && request.expiresAt > callerExpiry) {
    throw new ValidationError(
      [
        {
          pointer: '/body/expiresAt',
          message: `must be no later than ${callerExpiry}, when the creating credential expires`,
        },
      ],
      'A key cannot outlive the credential that creates it.',
    );
  }
  return {
    ...request,
    ips: request.ips ?? callerIps,
    expiresAt: request.expiresAt ?? callerExpiry,
    createdBy: auth.keyId,
  };
};

/** Creates a key; the answer holds its secret, shown this once. */
export const issueApiKey = async (
  companyId: string,
  request: ApiKeyRequest,
  issuer: KeyIssuer,
  now: Date,
) => {
  if (request.expiresAt !== undefined && Date.parse(request.expiresAt) <= now.getTime()) {
    throw new ValidationError(
      [{ pointer: '/body/expiresAt', message: 'must be in the future' }],
      'The key would be expired already.',
    );
  }
  // Addresses arrive trimmed by the body schema, which the operator CLI parses through too.
  const input: NewApiKey = issuer.kind === 'caller' ? boundedByCaller(request, issuer.auth) : request;
  try {
    const { record, key } = await createApiKey(companyId, input, now);
    return { key: toPublicApiKey(record, now), secret: key };
  } catch (error) {
    if (!(error instanceof ApiKeyLimitReachedError)) throw error;
    throw new AppError(
      'api_key_limit_reached',
      `The company holds ${error.limit} active API keys: revoke one before creating another.`,
      { extensions: { limit: error.limit } },
    );
  }
};

/** `<createdAt>#<keyId>`: a key's place in the list, the list's cursor. */
const KEY_CURSOR_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#key_[0-9a-z]{26}$/;

/** A page of the company's keys, oldest first. */
export const apiKeyPage = async (companyId: string, request: PageRequest, now: Date) => {
  const after = listCursor(request.cursor, KEY_CURSOR_PATTERN);
  const { keys, more } = await listApiKeyPage(companyId, { limit: request.limit ?? MAX_LIST_PAGE, after });
  const last = keys.at(-1);
  return {
    keys: keys.map((key) => toPublicApiKey(key, now)),
    nextCursor: more && last ? apiKeyPosition(last) : null,
  };
};

/**
 * How long after a key's revocation a token derived from it may still be accepted, at most: a warm authorizer
 * may accept the key for its cache TTL (at most 60 s), a sync run it started may mint until its deadline
 * (below 29 s), and that token lives the longest lifetime plus the clock skew.
 */
const DERIVED_AFTER_REVOCATION_SECONDS = 60 + 29 + JWT_MAX_LIFETIME_SECONDS + 2 * CLOCK_SKEW_SECONDS;

/** Revokes an API key and every token derived from it, the revocation kept while any may be accepted. */
export const revokeKeyAndDerivedTokens = (companyId: string, keyId: string, now: Date) =>
  revokeApiKey(companyId, keyId, now, Math.floor(now.getTime() / 1000) + DERIVED_AFTER_REVOCATION_SECONDS);

const NO_KEY = 'No API key with this id.';

export const findCompanyApiKey = async (companyId: string, keyId: string, now: Date) => {
  const key = await findApiKey(companyId, keyId);
  if (!key) throw new NotFoundError(NO_KEY);
  return toPublicApiKey(key, now);
};

/**
 * Revokes a key of the company and every token derived from it (the window in which they may still be
 * accepted is the authorizer's cache TTL). Revoking a revoked key answers it as it is.
 */
export const revokeCompanyApiKey = async (companyId: string, keyId: string, now: Date) => {
  try {
    return toPublicApiKey(await revokeKeyAndDerivedTokens(companyId, keyId, now), now);
  } catch (error) {
    if (error instanceof ApiKeyNotFoundError) throw new NotFoundError(NO_KEY);
    throw error;
  }
};
