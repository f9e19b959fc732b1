import { getItemsByKey } from '../data/batch';
import { companyEntry } from '../data/companies';
import { sumTypeCounterBytes } from '../data/dynadata-type-counters';
import { getPlan, planEntry } from '../data/plans';
import {
  countedInParts,
  secondsToNextUtcMonth,
  usageFigures,
  usageMonthPartEntries,
  usagePeriodEntry,
  usageTotalsEntry,
} from '../data/usage-meters';
import { AppError, NotFoundError } from '../errors';
import type { Plan } from '../types/plans';
import { resolveLimits } from './limits';
import { subscriptionPeriod } from './subscription';

/** The UTC calendar window of a snapshot: the current month, or today from 00:00 UTC. */
export const usageWindow = (now: Date, granularity: 'month' | 'day') => {
  const start =
    granularity === 'month'
      ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
      : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const end =
    granularity === 'month'
      ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
      : new Date(start.getTime() + 86_400_000);
  return { granularity, start: start.toISOString(), end: end.toISOString() };
};

/**
 * The usage snapshot shared by `GET /v1/usage` and the MCP tool `get_usage`. With the company's plan id
 * known (the authorizer passes it), the company, its plan, the usage item of the window (the month item, or
 * the day item with `day`), the month's `api_requests` shards and billing family items (added to the window's
 * figures) and the running totals are read in one round trip, beside the query of the company's Dynadata type
 * counters (whose bytes `databaseBytes` adds to the totals' figure); a plan changed since then costs one more
 * read.
 */
export const getUsageSnapshot = async (
  companyId: string,
  granularity: 'month' | 'day',
  now: Date,
  planIdHint?: string,
) => {
  const partEntries = usageMonthPartEntries(companyId, now);
  const [[company, used, totals, ...rest], typeBytes] = await Promise.all([
    getItemsByKey([
      companyEntry(companyId),
      usagePeriodEntry(companyId, now, granularity),
      usageTotalsEntry(companyId),
      ...partEntries,
      ...(planIdHint ? [planEntry(planIdHint)] : []),
    ]),
    sumTypeCounterBytes(companyId),
  ]);
  if (!company) throw new NotFoundError('The company of this credential no longer exists.');
  const hinted = rest[partEntries.length] as Plan | undefined;
  const figures = usageFigures(
    used,
    totals,
    countedInParts(rest.slice(0, partEntries.length), now, granularity),
  );
  const plan = hinted && company.planId === planIdHint ? hinted : await getPlan(company.planId);
  if (!plan) throw new Error(`Company ${companyId} is on unknown plan ${company.planId}`);
  const period = subscriptionPeriod(company.subscriptionAnchor, now);
  return {
    window: usageWindow(now, granularity),
    asOf: now.toISOString(),
    meters: figures.meters,
    computeMs: figures.computeMs,
    storageBytes: figures.storageBytes,
    // `TOTALS` holds what was counted before the types' counters and what deleted types left.
    databaseBytes: figures.databaseBytes + typeBytes,
    plan: { id: plan.id, name: plan.name, limits: resolveLimits(plan.limits, company) },
    subscription: {
      status: company.subscriptionStatus,
      currentPeriodStart: period.start.toISOString(),
      currentPeriodEnd: period.end.toISOString(),
    },
  };
};

/** 429 `quota_exceeded`: the month's `api_requests` allowance is used up (until the next UTC month). */
export const apiRequestsQuotaError = (limit: number | undefined, now: Date): AppError =>
  new AppError('quota_exceeded', 'The monthly allowance of API requests of your plan is used up.', {
    retryAfterSeconds: secondsToNextUtcMonth(now),
    extensions: { meter: 'api_requests', limit },
  });

/** 503 `service_unavailable`: a usage meter write was throttled; the request did nothing and may be sent again. */
export const meterThrottledError = (): AppError =>
  new AppError('service_unavailable', 'The request could not be counted right now; send it again shortly.', {
    retryAfterSeconds: 1,
  });
