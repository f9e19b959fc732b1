import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('../../functions/shared/data/plans', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/plans')>()),
  putPlan: vi.fn(async () => undefined),
}));

import { putPlan } from '../../functions/shared/data/plans';
import {
  COMPANY_LIMITS,
  COMPANY_REQUESTS_PER_SECOND,
  METER_WRITE_UNITS_PER_REQUEST,
  PLAN_RATE_CEILING,
} from '../../functions/shared/domain/capacity';
import { DEFAULT_PLANS } from '../../functions/shared/domain/plan-catalog';
import { PlanRateAboveCeilingError, storePlan } from '../../functions/shared/domain/plans';
import { API_REQUEST_SHARDS } from '../../functions/shared/types/meters';
import type { Plan } from '../../functions/shared/types/plans';

const now = new Date('2026-11-25T00:00:00Z');
const planWith = (rate: { requestsPerSecond: number; burst: number }): Plan => {
  const base = DEFAULT_PLANS[0];
  if (!base) throw new Error('no shipped plan');
  return { ...base, id: 'rated', limits: { ...base.limits, ...rate } };
};

afterEach(() => vi.mocked(putPlan).mockClear());

describe('plan request rates against the plan ceiling', () => {
  it('meters a request in one write unit, so the meter takes 500 requests a second in half its partition', () => {
    expect(METER_WRITE_UNITS_PER_REQUEST).toBe(1);
    expect(API_REQUEST_SHARDS).toBe(10);
    expect(COMPANY_LIMITS.usageMeter).toBe(500);
  });

  it('sells at most half of what one company sustains: 250 requests a second, burst 500', () => {
    expect(COMPANY_REQUESTS_PER_SECOND).toBe(500);
    expect(PLAN_RATE_CEILING).toEqual({ requestsPerSecond: 250, burst: 500 });
  });

  it('carries at least twice the highest shipped plan’s rate', () => {
    const highest = Math.max(...DEFAULT_PLANS.map((plan) => plan.limits.requestsPerSecond));
    expect(COMPANY_REQUESTS_PER_SECOND).toBeGreaterThanOrEqual(2 * highest);
  });

  it.each(DEFAULT_PLANS.map((p) => [p.id, p] as const))('stores the shipped plan %s', async (_id, plan) => {
    await storePlan(plan, now);
    expect(putPlan).toHaveBeenCalledWith(plan, now);
  });

  it('stores a plan exactly at the ceiling', async () => {
    await storePlan(planWith({ requestsPerSecond: 250, burst: 500 }), now);
    expect(putPlan).toHaveBeenCalledTimes(1);
  });

  it.each([
    [{ requestsPerSecond: 251, burst: 300 }, 'requestsPerSecond 251 is above 250'],
    [{ requestsPerSecond: 100, burst: 501 }, 'burst 501 is above 500'],
  ])('refuses %j with plan_rate_above_meter_ceiling and stores nothing', async (rate, reason) => {
    const refusal = storePlan(planWith(rate), now);
    await expect(refusal).rejects.toBeInstanceOf(PlanRateAboveCeilingError);
    await expect(refusal).rejects.toMatchObject({ code: 'plan_rate_above_meter_ceiling' });
    await expect(refusal).rejects.toThrow(reason);
    expect(putPlan).not.toHaveBeenCalled();
  });
});
