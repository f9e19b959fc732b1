import { listPlans, putPlan } from '../data/plans';
import type { Plan, PlanLimits } from '../types/plans';
import { PLAN_RATE_CEILING } from './capacity';

/** The public plan catalog, cheapest first (ties by id); only plans on sale with `sellableOnly`. */
export const listCatalogPlans = async (options: { sellableOnly: boolean }): Promise<Plan[]> =>
  (await listPlans())
    .filter((plan) => !options.sellableOnly || plan.sellable)
    .sort((a, b) => a.price.amount - b.price.amount || a.id.localeCompare(b.id));

/**
 * A plan whose request rate passes the plan ceiling: half of what one company's partitions sustain
 * (`capacity.ts`, `docs/operate.md#capacity`), so a company at its plan's rate has twice it in reserve.
 */
export class PlanRateAboveCeilingError extends Error {
  readonly code = 'plan_rate_above_meter_ceiling';
  constructor(planId: string, passed: string[]) {
    super(
      `plan ${planId}: ${passed.join(', ')} (at most ${PLAN_RATE_CEILING.requestsPerSecond} requests a second ` +
        `and a burst of ${PLAN_RATE_CEILING.burst}: half of what one company's meter, audit trail and data ` +
        'partitions take, so every company keeps twice its rate in reserve)',
    );
    this.name = 'PlanRateAboveCeilingError';
  }
}

/** The rate limits of `limits` that pass the plan ceiling, described; empty when none does. */
export const ratesAboveCeiling = (limits: Pick<PlanLimits, 'requestsPerSecond' | 'burst'>): string[] =>
  (['requestsPerSecond', 'burst'] as const)
    .filter((name) => limits[name] > PLAN_RATE_CEILING[name])
    .map((name) => `${name} ${limits[name]} is above ${PLAN_RATE_CEILING[name]}`);

/** Creates or replaces a plan of the catalog (operator action), refusing a rate the meters cannot take. */
export const storePlan = async (plan: Plan, now: Date): Promise<void> => {
  const passed = ratesAboveCeiling(plan.limits);
  if (passed.length > 0) throw new PlanRateAboveCeilingError(plan.id, passed);
  await putPlan(plan, now);
};
