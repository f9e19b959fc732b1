import type { Scope } from './scopes';

export type AuthMethod = 'api_key' | 'jwt';

/** What the authorizer established about the caller. Carried in the authorizer context as strings. */
export interface AuthContext {
  companyId: string;
  authMethod: AuthMethod;
  /** API key id, or the JWT id when the credential is a token. */
  keyId: string;
  scopes: Scope[];
  /**
   * The root credential: the API key id, or a token's `src` claim (the key it was derived from, or
   * `jti:<root token id>`). A token minted for this caller names the same root.
   */
  source?: string;
  /** A token's `exp` (epoch seconds) and `ips` allow-list: a token minted for this caller inherits both. */
  tokenExpiresAt?: number;
  tokenIps?: string[];
  /** A token's ancestors (`anc`): a token minted for this caller names them and the caller. */
  tokenAncestors?: string[];
  /** The company's resolved monthly allowance of `api_requests` (plan default or override). */
  apiRequestsPerMonth?: number;
  /** The company's resolved largest single upload and total storage allowance, in bytes. */
  maxObjectBytes?: number;
  storageBytesLimit?: number;
  /** The company's resolved request rate: steady requests per second and burst (token bucket). */
  requestsPerSecond?: number;
  burst?: number;
  /** The company's plan as the authorizer saw it (at most its cache TTL old); a hint, not an authority. */
  planId?: string;
  /**
   * The company's profile as the authorizer saw it (at most its cache TTL old, like the plan and limits the
   * request is held to): `GET /v1/self` answers from it without reading the company again.
   */
  profile?: CompanyProfileHint;
}

/** The company item's members the profile is made of (the company is active, or the call was refused). */
export interface CompanyProfileHint {
  name: string;
  createdAt: string;
  subscriptionAnchor: string;
  subscriptionStatus: 'active' | 'past_due' | 'canceled';
}
