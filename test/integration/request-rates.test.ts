import { describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

/** Per-company request rates: the plan's token bucket, applied by the gateway before any function runs. */
describe('per-company request rates', () => {
  it('answers a company over its rate 429 throttled with Retry-After while another company is unaffected', async () => {
    const noisy = await createTenant({ limits: { requestsPerSecond: 1, burst: 3 } });
    const quiet = await createTenant({ limits: { requestsPerSecond: 1, burst: 3 } });
    const self = (apiKey: string) => call('GET', '/v1/self', { headers: { 'x-api-key': apiKey } });

    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 12 }, () => self(noisy.apiKey)));
    const elapsedSeconds = (Date.now() - started) / 1000;
    const passed = answers.filter((a) => a.status === 200).length;
    // The burst passes, plus at most the tokens refilled (1 a second) while the requests ran.
    expect(passed).toBeGreaterThanOrEqual(3);
    expect(passed).toBeLessThanOrEqual(3 + Math.ceil(elapsedSeconds));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(12 - passed);
    for (const res of refused) {
      expectProblem(res, 429, 'throttled');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get('ratelimit-policy')).toBe('"company";q=3;w=3');
      expect(res.headers.get('ratelimit')).toMatch(/^"company";r=0;t=\d+$/);
    }

    // The other company's bucket is its own.
    const other = await self(quiet.apiKey);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toBe('"company";r=2;t=1');

    // A second later the noisy company has a token again.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await self(noisy.apiKey)).status).toBe(200);
  });

  it('describes the plan rate on every answer with the IETF RateLimit fields', async () => {
    const t = await createTenant({ plan: 'starter', planRate: true });
    const res = await call('GET', '/v1/self', { headers: { 'x-api-key': t.apiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"company";q=100;w=2');
    expect(res.headers.get('ratelimit')).toBe('"company";r=99;t=1');
  });

  it('publishes each plan request rate in the catalog', async () => {
    const res = await call('GET', '/v1/public/plans');
    const plans = res.json.plans as { id: string; limits: { requestsPerSecond: number; burst: number } }[];
    expect(plans.find((p) => p.id === 'free')?.limits).toMatchObject({ requestsPerSecond: 10, burst: 20 });
    for (const plan of plans) expect(plan.limits.burst).toBeGreaterThanOrEqual(plan.limits.requestsPerSecond);
  });
});
