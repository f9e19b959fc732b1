import { createHash } from 'node:crypto';

/**
 * Authorizer decisions are cached (`shared/ttl-cache.ts`) by a hash of the credential, never the credential
 * itself. API Gateway's own authorizer cache is off (see the authorizer), so that cache is the only one and
 * its TTL bounds how long a revoked key keeps working.
 */
export const credentialCacheKey = (kind: string, value: string, scope = ''): string =>
  createHash('sha256').update(`${kind}\u0000${value}\u0000${scope}`).digest('base64url');
