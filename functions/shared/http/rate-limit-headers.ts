/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) for a company's request rate, a
 * token bucket that refills `requestsPerSecond` tokens a second up to `burst`:
 * - `RateLimit-Policy: "company";q=<burst>;w=<seconds to refill an empty bucket>` (q requests per w seconds:
 *   the burst, and the steady rate as q/w);
 * - `RateLimit: "company";r=<requests left now>;t=<seconds until the bucket is full again>`;
 * - on a refusal, `Retry-After` in seconds (until one token is back) and `RateLimit` with `r=0`.
 */
export const RATE_LIMIT_POLICY = 'company';

export interface RateLimitState {
  requestsPerSecond: number;
  burst: number;
  /** Tokens left after this request (fractional). */
  tokens: number;
}

const refillSeconds = (missing: number, requestsPerSecond: number): number =>
  Math.max(0, Math.ceil(missing / requestsPerSecond));

export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  'ratelimit-policy': `"${RATE_LIMIT_POLICY}";q=${state.burst};w=${refillSeconds(state.burst, state.requestsPerSecond)}`,
  ratelimit: `"${RATE_LIMIT_POLICY}";r=${Math.max(0, Math.floor(state.tokens))};t=${refillSeconds(
    state.burst - state.tokens,
    state.requestsPerSecond,
  )}`,
});

/** Seconds until a refused caller has one token again (at least 1: Retry-After counts whole seconds). */
export const retryAfterSeconds = (state: RateLimitState): number =>
  Math.max(1, refillSeconds(1 - state.tokens, state.requestsPerSecond));
