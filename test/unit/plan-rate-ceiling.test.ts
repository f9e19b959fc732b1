import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('../../functions/shared/data/plans', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/plans')>()),
  putPlan: vi.fn(async () => undefined),
}));

import { putPlan } from '../../functions/shared/data/plans';
import { API_REQUEST_SHARDS } from '../../functions/shared/data/usage-shards';
import { DEFAULT_PLANS } from '../../functions/shared/domain/plan-catalog';
import {
  METER_RATE_CEILING,
  METER_SHARDS_REQUESTS_PER_SECOND,
  METER_WRITE_UNITS_PER_REQUEST,
  PlanRateAboveCeilingError,
  storePlan,
} from '../../functions/shared/domain/plans';
import type { Plan } from '../../functions/shared/types/plans';

const now = new Date('2026-11-25T00:00:00Z');
const planWith = (rate: { requestsPerSecond: number; burst: number }): Plan => {
  const base = DEFAULT_PLANS[0];
  if (!base) throw new Error('no shipped plan');
  return { ...base, id: 'rated', limits: { ...base.limits, ...rate } };
};

afterEach(() => vi.mocked(putPlan).mockClear());

describe('plan request rates against the usage meter ceiling', () => {
  it('states 500 requests a second and a burst of 1,000 for one company: one write unit a request', () => {
    expect(METER_WRITE_UNITS_PER_REQUEST).toBe(1);
    expect(API_REQUEST_SHARDS).toBe(10);
    expect(METER_SHARDS_REQUESTS_PER_SECOND).toBe(10_000);
    expect(METER_RATE_CEILING).toEqual({ requestsPerSecond: 500, burst: 1_000 });
  });

  it('carries at least twice the highest shipped plan’s rate', () => {
    const highest = Math.max(...DEFAULT_PLANS.map((plan) => plan.limits.requestsPerSecond));
    expect(METER_RATE_CEILING.requestsPerSecond).toBeGreaterThanOrEqual(2 * highest);
  });

  it.each(DEFAULT_PLANS.map((p) => [p.id, p] as const))('stores the shipped plan %s', async (_id, plan) => {
    await storePlan(plan, now);
    expect(putPlan).toHaveBeenCalledWith(plan, now);
  });

  it('stores a plan exactly at the ceiling', async () => {
    await storePlan(planWith({ requestsPerSecond: 500, burst: 1_000 }), now);
    expect(putPlan).toHaveBeenCalledTimes(1);
  });

  it.each([
    [{ requestsPerSecond: 501, burst: 600 }, 'requestsPerSecond 501 is above 500'],
    [{ requestsPerSecond: 100, burst: 1_001 }, 'burst 1001 is above 1000'],
  ])('refuses %j with plan_rate_above_meter_ceiling and stores nothing', async (rate, reason) => {
    const refusal = storePlan(planWith(rate), now);
    await expect(refusal).rejects.toBeInstanceOf(PlanRateAboveCeilingError);
    await expect(refusal).rejects.toMatchObject({ code: 'plan_rate_above_meter_ceiling' });
    await expect(refusal).rejects.toThrow(reason);
    expect(putPlan).not.toHaveBeenCalled();
  });
});
