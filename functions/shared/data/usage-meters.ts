import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lazy } from '../lazy';
import {
  API_REQUEST_SHARDS,
  COMPUTE_CATEGORIES,
  type ComputeCategory,
  type ComputeMs,
  METERS,
  type MeterName,
} from '../types/meters';
import * as zm from '../zod-mini';
import { type BatchEntry, getItemsByKey } from './batch';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from './client';
import { sumTypeCounterBytes } from './dynadata-type-counters';
import { decodeItem } from './entity';
import { monthOfUsageSortKey, partitions, sortKeys } from './keys';
import { isThrottled, MeterThrottledError } from './throttling';
import { updateParams } from './update-expression';
import {
  computeFigure,
  familiesFigure,
  familyFigures,
  familyLimit,
  familyOf,
  familyUpdate,
  toUsageFamily,
  type UsageAdditions,
  type UsageFamilyFigures,
  type UsageFigure,
  type UsageLimit,
  usageFamilyEntries,
  usageFamilyKey,
} from './usage-families';
import {
  type ApiRequestShard,
  addApiRequests,
  apiRequestShardEntries,
  shardedApiRequests,
  toApiRequestShard,
} from './usage-shards';

/**
 * Usage meters, in a partition of the company's own (`CO#<id>#USAGE`, never the company profile's):
 * - the family items of the month `M#<yyyy-mm>#<family>` (`usage-families.ts`): every billed figure, its
 *   month total (what monthly allowances are checked against; the write carries the condition) and its count
 *   of each UTC day, in one write of one item per billed write
 *   (`docs/decisions/0048-one-usage-item-per-billed-write.md`);
 * - the shards of the month's `api_requests` (`M#<yyyy-mm>#S<nn>`, `usage-shards.ts`): the figure of every
 *   metered request, month and day in one write (`docs/decisions/0037-sharded-api-requests-meter.md`);
 * - the month item `M#<yyyy-mm>` and the day items `D#<yyyy-mm-dd>`: what was counted before the shards and
 *   the families (`docs/decisions/0008-usage-meter-items.md`), no longer written but for the month item's
 *   `alertsVersion`; readers add them, so no figure counted before is lost;
 * - the `TOTALS` item: the running totals that are not per month (`storageBytes`, `databaseBytes`). Dynadata
 *   item writes count their bytes on their type's counter item (`dynadata-type-counters.ts`): `databaseBytes`
 *   is the `TOTALS` figure (bytes counted before the counters existed, and what deleted types left) plus the
 *   bytes of every counter (`docs/decisions/0049-dynadata-type-counter-item.md`).
 * Day items do not start with `M#`: the stream filter of usage thresholds sees month items, shards and families.
 *
 * This module owns every write to those items. Other modules that must count something inside their own
 * transaction (a billed job, a recorded object, a deleted Dynadata type's bytes) put the transaction items
 * exported here into it: `usageItems` (and `limitedUsageItems`, `addToMeterItems`, `addComputeMsItems`),
 * `addStorageBytesItem`, `addDatabaseBytesItem`.
 */

export const usageMonthKey = (companyId: string, month: string) => ({
  pk: partitions.usage(companyId),
  sk: sortKeys.usageMonth(month),
});

/** The day item of a UTC date (`yyyy-mm-dd`). */
export const usageDayKey = (companyId: string, date: string) => ({
  pk: partitions.usage(companyId),
  sk: sortKeys.usageDay(date),
});

/** Running totals that are not per month (bytes stored), kept beside the month items. */
export const usageTotalsKey = (companyId: string) => ({
  pk: partitions.usage(companyId),
  sk: sortKeys.usageTotals,
});

export const utcMonth = (now: Date): string => now.toISOString().slice(0, 7);
export const utcDate = (now: Date): string => now.toISOString().slice(0, 10);

/** The figures of one usage item (a month or a day), zero where nothing was counted. */
export interface UsagePeriod {
  figure: (attribute: UsageFigure) => number;
}

/** A month or day item's attributes: its figures are numbers, its key and entity name text. */
const usagePeriodSchema = /* @__PURE__ */ lazy(() =>
  zm.record(zm.string(), zm.union([zm.number(), zm.string()])),
);
const usageTotalsSchema = /* @__PURE__ */ lazy(() =>
  zm.object({
    storageBytes: zm.optional(zm.number()),
    databaseBytes: zm.optional(zm.number()),
  }),
);

export const toUsagePeriod = (item: Record<string, unknown>): UsagePeriod => {
  const period = decodeItem('usage_period', usagePeriodSchema(), item);
  return {
    figure: (attribute) => {
      const value = period[attribute];
      return typeof value === 'number' ? value : 0;
    },
  };
};

export interface UsageTotals {
  storageBytes: number;
  databaseBytes: number;
}

export const toUsageTotals = (item: Record<string, unknown>): UsageTotals => {
  const totals = decodeItem('usage_totals', usageTotalsSchema(), item);
  return { storageBytes: totals.storageBytes ?? 0, databaseBytes: totals.databaseBytes ?? 0 };
};

/** What a company that has counted nothing yet reads (decoded on first use, like every schema here). */
const emptyPeriod = /* @__PURE__ */ lazy(() => toUsagePeriod({}));
const emptyTotals = /* @__PURE__ */ lazy(() => toUsageTotals({}));

/**
 * What a meter's monthly allowance is checked against, for a batch read: the month item (what was counted
 * before the families) and the meter's family item. `meterMonthFigure` adds them.
 */
export const meterMonthEntries = (
  companyId: string,
  meter: MeterName,
  now: Date,
): [BatchEntry<UsagePeriod>, BatchEntry<UsagePeriod>] => [
  { key: usageMonthKey(companyId, utcMonth(now)), decode: toUsagePeriod },
  { key: usageFamilyKey(companyId, utcMonth(now), familyOf([meter])), decode: toUsagePeriod },
];

/** A meter's month total from what `meterMonthEntries` read. */
export const meterMonthFigure = (
  parts: readonly [UsagePeriod | undefined, UsagePeriod | undefined],
  meter: MeterName,
): number => (parts[0]?.figure(meter) ?? 0) + (parts[1]?.figure(meter) ?? 0);

/** The usage item of the UTC month or day of `now`, for a batch read. */
export const usagePeriodEntry = (
  companyId: string,
  now: Date,
  granularity: 'month' | 'day',
): BatchEntry<UsagePeriod> => ({
  key:
    granularity === 'month' ? usageMonthKey(companyId, utcMonth(now)) : usageDayKey(companyId, utcDate(now)),
  decode: toUsagePeriod,
});

/** The running totals, for a batch read. */
export const usageTotalsEntry = (companyId: string): BatchEntry<UsageTotals> => ({
  key: usageTotalsKey(companyId),
  decode: toUsageTotals,
});

export interface UsageWindowFigures {
  meters: Record<MeterName, number>;
  computeMs: Record<ComputeCategory, number>;
  storageBytes: number;
  databaseBytes: number;
}

/**
 * The figures of a window's usage item and the running totals (absent items count 0), with `counted` (what
 * the shards and the family items counted in the window) added to the item's.
 */
export const usageFigures = (
  period: UsagePeriod | undefined,
  totals: UsageTotals | undefined,
  counted: UsageAdditions = {},
): UsageWindowFigures => {
  const { figure } = period ?? emptyPeriod();
  const of = (attribute: UsageFigure) => figure(attribute) + (counted[attribute] ?? 0);
  return {
    meters: Object.fromEntries(METERS.map((m) => [m, of(m)])) as Record<MeterName, number>,
    computeMs: Object.fromEntries(COMPUTE_CATEGORIES.map((c) => [c, of(computeFigure(c))])) as Record<
      ComputeCategory,
      number
    >,
    ...(totals ?? emptyTotals()),
  };
};

/** The shards and the family items of the month of `now`, for a batch read beside the window's usage item. */
export const usageMonthPartEntries = (companyId: string, now: Date) => [
  ...apiRequestShardEntries(companyId, utcMonth(now)),
  ...usageFamilyEntries(companyId, utcMonth(now)),
];

/**
 * What the parts `usageMonthPartEntries` read (in its order) counted in the window of `now`: the month's, or
 * the day's with `day`.
 */
export const countedInParts = (
  parts: readonly unknown[],
  now: Date,
  granularity: 'month' | 'day',
): UsageAdditions => {
  const date = granularity === 'day' ? utcDate(now) : undefined;
  const shards = parts.slice(0, API_REQUEST_SHARDS) as (ApiRequestShard | undefined)[];
  const families = parts.slice(API_REQUEST_SHARDS) as (UsageFamilyFigures | undefined)[];
  const counted: UsageAdditions = {
    api_requests: shardedApiRequests(shards, date),
  };
  for (const figure of [...METERS, ...COMPUTE_CATEGORIES.map(computeFigure)])
    if (figure !== 'api_requests') counted[figure] = familiesFigure(families, figure, date);
  return counted;
};

/**
 * The company's usage figures for the window, in one round trip, beside the query of its Dynadata type
 * counters (`databaseBytes` is the totals' figure plus their bytes).
 */
export const readUsage = async (
  companyId: string,
  now: Date,
  granularity: 'month' | 'day',
): Promise<UsageWindowFigures> => {
  const [[period, totals, ...parts], typeBytes] = await Promise.all([
    getItemsByKey([
      usagePeriodEntry(companyId, now, granularity),
      usageTotalsEntry(companyId),
      ...usageMonthPartEntries(companyId, now),
    ]),
    sumTypeCounterBytes(companyId),
  ]);
  const figures = usageFigures(
    period as UsagePeriod,
    totals as UsageTotals,
    countedInParts(parts, now, granularity),
  );
  return { ...figures, databaseBytes: figures.databaseBytes + typeBytes };
};

/** The usage partition's items whose sort keys run from `from` to `to`, inclusive. */
const queryUsageRange = (companyId: string, from: string, to: string) =>
  queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': partitions.usage(companyId), ':from': from, ':to': to },
  });

const add = (counted: UsageAdditions, figure: UsageFigure, amount: number) => {
  if (amount !== 0) counted[figure] = (counted[figure] ?? 0) + amount;
};

/** The dates of a month (`yyyy-mm`) from `from` to `to` (`yyyy-mm-dd`), at most 31. */
const datesOf = (month: string, from: string, to: string): string[] =>
  Array.from({ length: 31 }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`).filter(
    (date) => date >= from && date <= to,
  );

/**
 * The company's usage of the days (`yyyy-mm-dd`) or months (`yyyy-mm`) from `from` to `to`, inclusive, by
 * period: the month items, their shards and family items (one query over the range of the months), and for
 * days the day items (one more query) with the days the shards and family items of their months counted.
 * Periods without usage are absent.
 */
export const readUsageSeries = async (
  companyId: string,
  granularity: 'month' | 'day',
  from: string,
  to: string,
): Promise<Map<string, UsageWindowFigures>> => {
  // `~` sorts after the `#S<nn>` and `#<family>` of every part of the last month.
  const months = queryUsageRange(
    companyId,
    sortKeys.usageMonth(from.slice(0, 7)),
    `${sortKeys.usageMonth(to.slice(0, 7))}#~`,
  );
  const days =
    granularity === 'day'
      ? queryUsageRange(companyId, sortKeys.usageDay(from), sortKeys.usageDay(to))
      : Promise.resolve([]);
  const [monthItems, dayItems] = await Promise.all([months, days]);
  const periods = new Map<string, { item?: Record<string, unknown>; counted: UsageAdditions }>();
  const period = (key: string) => {
    const found = periods.get(key) ?? { counted: {} };
    periods.set(key, found);
    return found;
  };
  for (const item of dayItems) period(String(item.sk).slice(sortKeys.usageDay('').length)).item = item;
  for (const item of monthItems) {
    const sk = monthOfUsageSortKey(String(item.sk));
    if (!sk) continue;
    if (sk.shard === undefined && sk.family === undefined) {
      if (granularity === 'month') period(sk.month).item = item;
      continue;
    }
    const shard = sk.shard === undefined ? undefined : toApiRequestShard(item);
    const family = sk.family === undefined ? undefined : toUsageFamily(item);
    const figures = sk.family === undefined ? [] : familyFigures(sk.family);
    if (granularity === 'month') {
      if (shard) add(period(sk.month).counted, 'api_requests', shard.count);
      for (const figure of figures) add(period(sk.month).counted, figure, family?.month(figure) ?? 0);
      continue;
    }
    for (const date of datesOf(sk.month, from, to)) {
      if (shard) add(period(date).counted, 'api_requests', shard.day(date));
      for (const figure of figures) add(period(date).counted, figure, family?.day(figure, date) ?? 0);
    }
  }
  return new Map(
    [...periods.entries()]
      .filter(([, { item, counted }]) => item !== undefined || Object.keys(counted).length > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, { item, counted }]) => [
        key,
        usageFigures(item ? toUsagePeriod(item) : undefined, undefined, counted),
      ]),
  );
};

/** The month item's stamp of a change of the company's alert thresholds (`setCompanyUsageAlerts`). */
export const alertsVersionItem = (companyId: string, now: Date) => ({
  Update: {
    TableName: tableName(),
    Key: usageMonthKey(companyId, utcMonth(now)),
    ...updateParams<{ entity: string; alertsVersion: number }>({
      set: { entity: 'usage_month', alertsVersion: now.getTime() },
    }),
  },
});

/** The figures of billed work: the meter's amount and compute time by category, in whole milliseconds. */
export const billedWork = (meter: MeterName, amount: number, computeMs: ComputeMs = {}): UsageAdditions => ({
  [meter]: amount,
  ...Object.fromEntries(
    (Object.entries(computeMs) as [ComputeCategory, number][]).map(([category, ms]) => [
      computeFigure(category),
      Math.max(0, Math.round(ms)),
    ]),
  ),
});

const additionsOf = (additions: UsageAdditions): [UsageFigure, number][] =>
  (Object.entries(additions) as [UsageFigure, number | undefined][]).filter(
    (entry): entry is [UsageFigure, number] => entry[1] !== undefined && entry[1] !== 0,
  );

/** The one update of a billed write: its family item, month total and day count at once (`usage-families.ts`). */
const billedUpdate = (companyId: string, now: Date, additions: UsageAdditions, limit?: UsageLimit) => {
  const figures = additionsOf(additions);
  return figures.length === 0 ? undefined : familyUpdate(companyId, utcDate(now), figures, limit);
};

/**
 * Transaction items adding figures billed together to the UTC month and day of `now`: one update of their
 * family's item, or none when there is nothing to add. One call per transaction: a transaction may write an
 * item once, so figures billed together go in one call.
 */
export const usageItems = (companyId: string, now: Date, additions: UsageAdditions) => {
  const update = billedUpdate(companyId, now, additions);
  return update ? [{ Update: update }] : [];
};

/**
 * `usageItems` within a monthly allowance: the family item's update is conditional on the figure's month
 * total (with what the month item counted before the families, `familyLimit`) staying within `limit`, so
 * concurrent writes can never bill past it.
 */
export const limitedUsageItems = async (
  companyId: string,
  now: Date,
  additions: UsageAdditions,
  limit: UsageLimit,
) => {
  const update = billedUpdate(companyId, now, additions, await familyLimit(companyId, now, limit));
  return update ? [{ Update: update }] : [];
};

/** Transaction items adding `amount` to a meter (billing inside a write), within `limit`. */
export const addToMeterItems = (
  companyId: string,
  meter: MeterName,
  amount: number,
  now: Date,
  limit: number,
) => limitedUsageItems(companyId, now, { [meter]: amount }, { figure: meter, limit });

/** Transaction items adding compute milliseconds of one category (compute billed inside a write). */
export const addComputeMsItems = (companyId: string, category: ComputeCategory, ms: number, now: Date) =>
  usageItems(companyId, now, { [computeFigure(category)]: ms });

export class MeterLimitReachedError extends Error {
  constructor(meter: MeterName) {
    super(`Monthly allowance of ${meter} reached`);
    this.name = 'MeterLimitReachedError';
  }
}

const sendUpdate = async (update: ReturnType<typeof familyUpdate>) => {
  try {
    await ddb.send(new UpdateCommand(update));
  } catch (error) {
    throw isThrottled(error) ? new MeterThrottledError(error) : error;
  }
};

/**
 * Adds `amount` to the meter for the current UTC month and day, in one write; with a `limit`, a total that
 * would pass it is left unchanged and `MeterLimitReachedError` is thrown; a write DynamoDB throttled throws
 * `MeterThrottledError`. `api_requests` goes to one shard of the month (`usage-shards.ts`), other meters to
 * their family's item (`usage-families.ts`).
 */
export const addToMeter = async (
  companyId: string,
  meter: MeterName,
  amount: number,
  now: Date,
  limit?: number,
): Promise<void> => {
  if (amount === 0) return;
  if (meter === 'api_requests') {
    if (!(await addApiRequests(companyId, amount, utcDate(now), now.getTime(), limit)))
      throw new MeterLimitReachedError(meter);
    return;
  }
  const limited =
    limit === undefined ? undefined : await familyLimit(companyId, now, { figure: meter, limit });
  const update = billedUpdate(companyId, now, { [meter]: amount }, limited);
  if (!update) return;
  try {
    await sendUpdate(update);
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new MeterLimitReachedError(meter);
    throw error;
  }
};

/** Adds compute milliseconds of one category to the company's month and day figures (one write). */
export const addComputeMs = async (
  companyId: string,
  category: ComputeCategory,
  ms: number,
  now: Date,
): Promise<void> => {
  const update = billedUpdate(companyId, now, { [computeFigure(category)]: ms });
  if (update) await sendUpdate(update);
};

const totalsUpdate = (companyId: string, total: keyof UsageTotals, delta: number, headroom?: number) => ({
  Update: {
    TableName: tableName(),
    Key: usageTotalsKey(companyId),
    ...updateParams<UsageTotals & { entity: string }>(
      { add: { [total]: delta }, set: { entity: 'usage_totals' } },
      headroom === undefined
        ? undefined
        : {
            expression: `attribute_not_exists(#${total}) OR #${total} <= :headroom`,
            values: { ':headroom': headroom },
          },
    ),
  },
});

/**
 * Transaction item: adds a recorded object's bytes to `storageBytes`; with `headroom` (the allowance minus the
 * object's size), only while the total is at most that, so the allowance is never passed.
 */
export const addStorageBytesItem = (companyId: string, bytes: number, options: { headroom?: number } = {}) =>
  totalsUpdate(companyId, 'storageBytes', bytes, options.headroom);

/** Transaction item: adds a deleted Dynadata type's counter bytes (`dynadata-types.ts`) to `databaseBytes`. */
export const addDatabaseBytesItem = (companyId: string, delta: number) =>
  totalsUpdate(companyId, 'databaseBytes', delta);

/** Seconds from `now` to the start of the next UTC month: the `Retry-After` of a monthly quota. */
export const secondsToNextUtcMonth = (now: Date): number => {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
};
