import { listPlans, putPlan } from '../data/plans';
import { API_REQUEST_SHARDS } from '../data/usage-shards';
import type { Plan, PlanLimits } from '../types/plans';

/** The public plan catalog, cheapest first (ties by id); only plans on sale with `sellableOnly`. */
export const listCatalogPlans = async (options: { sellableOnly: boolean }): Promise<Plan[]> =>
  (await listPlans())
    .filter((plan) => !options.sellableOnly || plan.sellable)
    .sort((a, b) => a.price.amount - b.price.amount || a.id.localeCompare(b.id));

/**
 * The request rate one company's usage meters can take (`docs/decisions/0037-sharded-api-requests-meter.md`,
 * which replaces the figures of 0008). Every metered request makes one write to the company's usage partition:
 * an `UpdateItem` of one of the month's `API_REQUEST_SHARDS` shard items (month and day counts together,
 * under 1 KB, so one write unit). A DynamoDB partition takes at most 1,000 write units a second and one item
 * as many; the shards share the company's usage partition key, so the partition, not the item, is what the
 * meter saturates first (the shards keep each item at a tenth of the rate, and let DynamoDB split the
 * partition's items when it is hot, which is not counted on here). Half of the partition is left to its other
 * writes (a billed job, synthesis or workflow run writes the month and day items in its transaction, 4 units;
 * the byte totals of a Dynadata write or an upload, 2 units; the log shipper's compute time, 2 units; a
 * request at the allowance, at most one refused write per shard and process), so a company's steady rate is
 * at most 500 requests a second, 2.5x the highest plan's 200; a full token bucket sent at once spends at most
 * the partition's whole second on its meter, so the burst is at most 1,000.
 */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1_000;
export const ITEM_WRITE_UNITS_PER_SECOND = 1_000;
export const METER_WRITE_UNITS_PER_REQUEST = 1;
/** The share of the usage partition's write units the request meter may take; the rest is for other writes. */
export const METER_SHARE_OF_PARTITION = 0.5;
/** Requests a second the month's shards take, each at most one item's write units. */
export const METER_SHARDS_REQUESTS_PER_SECOND =
  (API_REQUEST_SHARDS * ITEM_WRITE_UNITS_PER_SECOND) / METER_WRITE_UNITS_PER_REQUEST;
export const METER_RATE_CEILING = {
  requestsPerSecond: Math.min(
    (PARTITION_WRITE_UNITS_PER_SECOND * METER_SHARE_OF_PARTITION) / METER_WRITE_UNITS_PER_REQUEST,
    METER_SHARDS_REQUESTS_PER_SECOND * METER_SHARE_OF_PARTITION,
  ),
  burst: Math.min(
    PARTITION_WRITE_UNITS_PER_SECOND / METER_WRITE_UNITS_PER_REQUEST,
    METER_SHARDS_REQUESTS_PER_SECOND,
  ),
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
