import { listPlans, putPlan } from '../data/plans';
import type { Plan, PlanLimits } from '../types/plans';

/** The public plan catalog, cheapest first (ties by id); only plans on sale with `sellableOnly`. */
export const listCatalogPlans = async (options: { sellableOnly: boolean }): Promise<Plan[]> =>
  (await listPlans())
    .filter((plan) => !options.sellableOnly || plan.sellable)
    .sort((a, b) => a.price.amount - b.price.amount || a.id.localeCompare(b.id));

/**
 * The request rate one company's usage meters can take (`docs/decisions/0008-usage-meter-items.md`). Every
 * metered request writes two items of the company's usage partition (the month item, conditional on the
 * allowance, and the day item), one write unit each since neither passes 1 KB; a DynamoDB partition takes at
 * most 1,000 write units a second. Half of that is left to the other writes of the partition (the byte
 * totals of a Dynadata write or an upload, a job's or a synthesis's billing in its transaction, the
 * shipper's compute time), so a company's steady rate is at most 250 requests a second; a full token bucket
 * sent at once spends at most the partition's whole second on its meter, so the burst is at most 500.
 */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;
export const METER_WRITE_UNITS_PER_REQUEST = 2;
export const METER_RATE_CEILING = {
  requestsPerSecond: PARTITION_WRITE_UNITS_PER_SECOND / METER_WRITE_UNITS_PER_REQUEST / 2,
  burst: PARTITION_WRITE_UNITS_PER_SECOND / METER_WRITE_UNITS_PER_REQUEST,
} as const;

/** A plan whose request rate passes what one company's usage meters can take. */
export class PlanRateAboveCeilingError extends Error {
  readonly code = 'plan_rate_above_meter_ceiling';
  constructor(planId: string, passed: string[]) {
    super(
      `plan ${planId}: ${passed.join(', ')} (at most ${METER_RATE_CEILING.requestsPerSecond} requests a second ` +
        `and a burst of ${METER_RATE_CEILING.burst}: the usage meters of one company take no more)`,
    );
    this.name = 'PlanRateAboveCeilingError';
  }
}

/** The rate limits of `limits` that pass the meter ceiling, described; empty when none does. */
export const ratesAboveCeiling = (limits: Pick<PlanLimits, 'requestsPerSecond' | 'burst'>): string[] =>
  (['requestsPerSecond', 'burst'] as const)
    .filter((name) => limits[name] > METER_RATE_CEILING[name])
    .map((name) => `${name} ${limits[name]} is above ${METER_RATE_CEILING[name]}`);

/** Creates or replaces a plan of the catalog (operator action), refusing a rate the meters cannot take. */
export const storePlan = async (plan: Plan, now: Date): Promise<void> => {
  const passed = ratesAboveCeiling(plan.limits);
  if (passed.length > 0) throw new PlanRateAboveCeilingError(plan.id, passed);
  await putPlan(plan, now);
};
