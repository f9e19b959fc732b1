import type { RateLimitState } from '../shared/http/rate-limit-headers';

/**
 * The local gateway's per-company request rate: one token bucket per company, refilled at the plan's
 * `requestsPerSecond` up to its `burst` (what API Gateway's usage-plan throttle applies on AWS). A request
 * takes one token or is refused. Buckets that are full again are dropped when the map grows, so memory stays
 * bounded by the companies active in the last `burst / requestsPerSecond` seconds.
 */
export interface RateDecision extends RateLimitState {
  allowed: boolean;
}

const MAX_BUCKETS = 10_000;

export const createRateLimiter = () => {
  const buckets = new Map<string, { tokens: number; at: number; full: number }>();
  const sweep = (now: number, rate: number) => {
    for (const [key, b] of buckets)
      if (b.tokens + ((now - b.at) / 1000) * rate >= b.full) buckets.delete(key);
  };
  return {
    take: (key: string, requestsPerSecond: number, burst: number, now = Date.now()): RateDecision => {
      const previous = buckets.get(key);
      // Concurrent requests may arrive out of order: time never runs backwards for a bucket.
      const at = Math.max(now, previous?.at ?? now);
      const refilled = previous
        ? Math.min(burst, previous.tokens + ((at - previous.at) / 1000) * requestsPerSecond)
        : burst;
      const allowed = refilled >= 1;
      const tokens = allowed ? refilled - 1 : refilled;
      if (!previous && buckets.size >= MAX_BUCKETS) sweep(now, requestsPerSecond);
      buckets.set(key, { tokens, at, full: burst });
      return { allowed, tokens, requestsPerSecond, burst };
    },
  };
};
