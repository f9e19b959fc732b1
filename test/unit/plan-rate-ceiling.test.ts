import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('../../functions/shared/data/plans', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/plans')>()),
  putPlan: vi.fn(async () => undefined),
}));

import { putPlan } from '../../functions/shared/data/plans';
import { DEFAULT_PLANS } from '../../functions/shared/domain/plan-catalog';
import {
  METER_RATE_CEILING,
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
  it('states 250 requests a second and a burst of 500 for one company', () => {
    expect(METER_RATE_CEILING).toEqual({ requestsPerSecond: 250, burst: 500 });
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
