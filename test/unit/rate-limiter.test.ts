import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../functions/local/rate-limiter';
import { rateLimitHeaders, retryAfterSeconds } from '../../functions/shared/http/rate-limit-headers';

describe('per-company token bucket', () => {
  it('allows the burst at once, then the steady rate, per company', () => {
    const limiter = createRateLimiter();
    const t0 = 1_000_000;
    const burst = [1, 2, 3].map(() => limiter.take('a', 2, 3, t0).allowed);
    expect(burst).toEqual([true, true, true]);
    expect(limiter.take('a', 2, 3, t0).allowed).toBe(false);
    // Another company has its own bucket.
    expect(limiter.take('b', 2, 3, t0).allowed).toBe(true);
    // Half a second refills one token at 2 per second.
    expect(limiter.take('a', 2, 3, t0 + 500).allowed).toBe(true);
    expect(limiter.take('a', 2, 3, t0 + 500).allowed).toBe(false);
    // Never above the burst, however long the pause.
    const later = t0 + 3_600_000;
    expect([1, 2, 3, 4].map(() => limiter.take('a', 2, 3, later).allowed)).toEqual([true, true, true, false]);
  });

  it('never drains a bucket when concurrent requests arrive with earlier times', () => {
    const limiter = createRateLimiter();
    const t0 = 2_000_000;
    expect(limiter.take('a', 100_000, 100_000, t0 + 50).allowed).toBe(true);
    // A request stamped 50 ms earlier takes one token, not 5,000.
    const late = limiter.take('a', 100_000, 100_000, t0);
    expect(late.allowed).toBe(true);
    expect(late.tokens).toBe(100_000 - 2);
  });

  it('describes the state with the IETF RateLimit fields and Retry-After', () => {
    expect(rateLimitHeaders({ requestsPerSecond: 10, burst: 20, tokens: 19 })).toEqual({
      'ratelimit-policy': '"company";q=20;w=2',
      ratelimit: '"company";r=19;t=1',
    });
    expect(rateLimitHeaders({ requestsPerSecond: 10, burst: 20, tokens: 0.4 })).toEqual({
      'ratelimit-policy': '"company";q=20;w=2',
      ratelimit: '"company";r=0;t=2',
    });
    expect(retryAfterSeconds({ requestsPerSecond: 1, burst: 2, tokens: 0.2 })).toBe(1);
    expect(retryAfterSeconds({ requestsPerSecond: 50, burst: 100, tokens: 0.9 })).toBe(1);
  });
});
