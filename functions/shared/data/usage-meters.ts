import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lazy } from '../lazy';
import { logger } from '../observability/logger';
import {
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
  type ApiRequestShard,
  addApiRequests,
  apiRequestShardEntries,
  shardedApiRequests,
  toApiRequestShard,
} from './usage-shards';

/**
 * Usage meters, in a partition of the company's own (`CO#<id>#USAGE`, never the company profile's):
 * - the month item `M#<yyyy-mm>`: the month total of every meter and compute category, the figure monthly
 *   allowances are checked against (its writes carry the condition);
 * - one day item `D#<yyyy-mm-dd>` per UTC day: the same figures for that day;
 * - the `TOTALS` item: the running totals that are not per month (`storageBytes`, `databaseBytes`). Dynadata
 *   item writes count their bytes on their type's counter item (`dynadata-type-counters.ts`): `databaseBytes`
 *   is the `TOTALS` figure (bytes counted before the counters existed, and what deleted types left) plus the
 *   bytes of every counter (`docs/decisions/0049-dynadata-type-counter-item.md`).
 * Every item holds at most one number per figure (14 attributes, about 300 bytes), so each write stays one
 * write unit on every day of the month (`docs/decisions/0008-usage-meter-items.md`).
 * - the shards of the month's `api_requests` (`M#<yyyy-mm>#S<nn>`, `usage-shards.ts`): the figure of every
 *   metered request, month and day in one write (`docs/decisions/0037-sharded-api-requests-meter.md`). The
 *   month and day items still hold the `api_requests` counted before the shards; readers add both.
 * Day items do not start with `M#`: the stream filter of usage thresholds sees month items and shards only.
 *
 * This module owns every write to those items. Other modules that must count something inside their own
 * transaction (a billed job, a recorded object, a deleted Dynadata type's bytes) put the transaction items
 * exported here into it: `usageItems` (and its shorthands `addToMeterItems`, `addComputeMsItems`),
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

/** A counted attribute of the month and day items: a meter or a compute category. */
export type UsageFigure = MeterName | `compute_ms#${ComputeCategory}`;
export const computeFigure = (category: ComputeCategory): UsageFigure => `compute_ms#${category}`;

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

/** The usage month of `now` (what allowances are checked against), for a batch read. */
export const usageMonthEntry = (companyId: string, now: Date): BatchEntry<UsagePeriod> => ({
  key: usageMonthKey(companyId, utcMonth(now)),
  decode: toUsagePeriod,
});

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
 * The figures of a window's usage item and the running totals (absent items count 0), with `apiRequests`
 * (what the shards counted in the window) added to the item's `api_requests`.
 */
export const usageFigures = (
  period: UsagePeriod | undefined,
  totals: UsageTotals | undefined,
  apiRequests = 0,
): UsageWindowFigures => {
  const { figure } = period ?? emptyPeriod();
  return {
    meters: Object.fromEntries(
      METERS.map((m) => [m, figure(m) + (m === 'api_requests' ? apiRequests : 0)]),
    ) as Record<MeterName, number>,
    computeMs: Object.fromEntries(COMPUTE_CATEGORIES.map((c) => [c, figure(computeFigure(c))])) as Record<
      ComputeCategory,
      number
    >,
    ...(totals ?? emptyTotals()),
  };
};

/** The `api_requests` of the window of `now` the shards counted (the month's, or the day's with `day`). */
export const shardedFigure = (
  shards: readonly (ApiRequestShard | undefined)[],
  now: Date,
  granularity: 'month' | 'day',
): number => shardedApiRequests(shards, granularity === 'day' ? utcDate(now) : undefined);

/** The shards of the month of `now`, for a batch read beside the window's usage item. */
export const usageShardEntries = (companyId: string, now: Date) =>
  apiRequestShardEntries(companyId, utcMonth(now));

/**
 * The company's usage figures for the window, in one round trip, beside the query of its Dynadata type
 * counters (`databaseBytes` is the totals' figure plus their bytes).
 */
export const readUsage = async (
  companyId: string,
  now: Date,
  granularity: 'month' | 'day',
): Promise<UsageWindowFigures> => {
  const [[period, totals, ...shards], typeBytes] = await Promise.all([
    getItemsByKey([
      usagePeriodEntry(companyId, now, granularity),
      usageTotalsEntry(companyId),
      ...usageShardEntries(companyId, now),
    ]),
    sumTypeCounterBytes(companyId),
  ]);
  const figures = usageFigures(period, totals, shardedFigure(shards as ApiRequestShard[], now, granularity));
  return { ...figures, databaseBytes: figures.databaseBytes + typeBytes };
};

/** The usage partition's items whose sort keys run from `from` to `to`, inclusive. */
const queryUsageRange = (companyId: string, from: string, to: string) =>
  queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': partitions.usage(companyId), ':from': from, ':to': to },
  });

/**
 * The company's usage of the days (`yyyy-mm-dd`) or months (`yyyy-mm`) from `from` to `to`, inclusive, by
 * period: the month items and their shards (one query over the range of the months), and for days the day
 * items (one more query) with the days the shards of their months counted. Periods without usage are absent.
 */
export const readUsageSeries = async (
  companyId: string,
  granularity: 'month' | 'day',
  from: string,
  to: string,
): Promise<Map<string, UsageWindowFigures>> => {
  // `~` sorts after the `#S<nn>` of every shard of the last month.
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
  const periods = new Map<string, { item?: Record<string, unknown>; apiRequests: number }>();
  const period = (key: string) => {
    const found = periods.get(key) ?? { apiRequests: 0 };
    periods.set(key, found);
    return found;
  };
  for (const item of dayItems) period(String(item.sk).slice(sortKeys.usageDay('').length)).item = item;
  for (const item of monthItems) {
    const sk = monthOfUsageSortKey(String(item.sk));
    if (!sk) continue;
    if (granularity === 'month') {
      if (sk.shard === undefined) period(sk.month).item = item;
      else period(sk.month).apiRequests += toApiRequestShard(item).count;
      continue;
    }
    if (sk.shard === undefined) continue;
    const shard = toApiRequestShard(item);
    for (let day = 1; day <= 31; day++) {
      const date = `${sk.month}-${String(day).padStart(2, '0')}`;
      const counted = shard.day(date);
      if (counted > 0 && date >= from && date <= to) period(date).apiRequests += counted;
    }
  }
  return new Map(
    [...periods.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, { item, apiRequests }]) => [
        key,
        usageFigures(item ? toUsagePeriod(item) : undefined, undefined, apiRequests),
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

/** Amounts to add, by figure; zero and absent figures are left out of the write. */
export type UsageAdditions = Partial<Record<UsageFigure, number>>;

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

/** A month total that must stay within an allowance after the addition. */
export interface UsageLimit {
  figure: MeterName;
  limit: number;
}

/**
 * The update of one usage item: ADDs every figure; with a `limit` (month item only), only while that
 * figure's total stays within it after the addition (`#limited < limit - amount + 1` is
 * `#limited + amount <= limit` for the whole units meters count).
 */
type UsageItem = { entity: 'usage_month' | 'usage_day' } & Record<UsageFigure, number>;

const usageUpdate = (
  key: { pk: string; sk: string },
  entity: 'usage_month' | 'usage_day',
  additions: [UsageFigure, number][],
  limit?: UsageLimit,
) => {
  const amount = limit === undefined ? undefined : additions.find(([figure]) => figure === limit.figure)?.[1];
  return {
    TableName: tableName(),
    Key: key,
    ...updateParams<UsageItem>(
      { add: Object.fromEntries(additions) as Partial<Record<UsageFigure, number>>, set: { entity } },
      limit === undefined || amount === undefined
        ? undefined
        : {
            expression: 'attribute_not_exists(#limited) OR #limited < :limit',
            names: { '#limited': limit.figure },
            values: { ':limit': limit.limit - amount + 1 },
          },
    ),
  };
};

const additionsOf = (additions: UsageAdditions): [UsageFigure, number][] =>
  (Object.entries(additions) as [UsageFigure, number | undefined][]).filter(
    (entry): entry is [UsageFigure, number] => entry[1] !== undefined && entry[1] !== 0,
  );

/** The month update (conditional with a limit) and the day update of one addition. */
const usageUpdates = (companyId: string, now: Date, additions: UsageAdditions, limit?: UsageLimit) => {
  const figures = additionsOf(additions);
  if (figures.length === 0) return undefined;
  return {
    month: usageUpdate(usageMonthKey(companyId, utcMonth(now)), 'usage_month', figures, limit),
    day: usageUpdate(usageDayKey(companyId, utcDate(now)), 'usage_day', figures),
  };
};

/**
 * Transaction items adding figures to the UTC month and day of `now`: the month item first (its index in
 * the transaction is where a refused limit shows), then the day item. With `limit`, the month item's update
 * is conditional, so concurrent writes can never bill past an allowance. One call per transaction: a
 * transaction may write an item once, so figures billed together go in one call. Nothing to add, no items.
 */
export const usageItems = (companyId: string, now: Date, additions: UsageAdditions, limit?: UsageLimit) => {
  const updates = usageUpdates(companyId, now, additions, limit);
  return updates ? [{ Update: updates.month }, { Update: updates.day }] : [];
};

/** Transaction items adding `amount` to a meter (billing inside a write), within `limit` when given. */
export const addToMeterItems = (
  companyId: string,
  meter: MeterName,
  amount: number,
  now: Date,
  options: { limit?: number } = {},
) =>
  usageItems(
    companyId,
    now,
    { [meter]: amount },
    options.limit === undefined ? undefined : { figure: meter, limit: options.limit },
  );

/** Transaction items adding compute milliseconds of one category (compute billed inside a write). */
export const addComputeMsItems = (companyId: string, category: ComputeCategory, ms: number, now: Date) =>
  usageItems(companyId, now, { [computeFigure(category)]: ms });

export class MeterLimitReachedError extends Error {
  constructor(meter: MeterName) {
    super(`Monthly allowance of ${meter} reached`);
    this.name = 'MeterLimitReachedError';
  }
}

/**
 * Adds `amount` to the meter for the current UTC month and day; with a `limit`, a total that would pass it is
 * left unchanged and `MeterLimitReachedError` is thrown; a write DynamoDB throttled throws
 * `MeterThrottledError`. `api_requests` goes to one shard of the month, in one write (`usage-shards.ts`).
 * Other meters take two writes of one unit each rather than a transaction of four, sent at once: the month
 * item, conditional with a `limit`, and the day item; a refused month write takes the amount back from the
 * day before it throws, so refused amounts end counted nowhere.
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
  const updates = usageUpdates(
    companyId,
    now,
    { [meter]: amount },
    limit === undefined ? undefined : { figure: meter, limit },
  );
  if (!updates) return;
  const [month, day] = await Promise.allSettled([
    ddb.send(new UpdateCommand(updates.month)),
    ddb.send(new UpdateCommand(updates.day)),
  ]);
  if (month.status === 'rejected') {
    // Only a refused month takes the day's unit back: a month write that failed otherwise (a timeout) may
    // have been applied, and the day then keeps it. A failed take-back leaves the day one over and is logged;
    // the answer is the month's (429 stays 429).
    if (isThrottled(month.reason)) throw new MeterThrottledError(month.reason);
    if (!isConditionalCheckFailed(month.reason)) throw month.reason;
    const back = usageUpdates(companyId, now, { [meter]: -amount });
    if (day.status === 'fulfilled' && back)
      await ddb.send(new UpdateCommand(back.day)).catch((error: unknown) => {
        logger.error('a refused request stays counted in its day figure', { companyId, meter, error });
      });
    throw new MeterLimitReachedError(meter);
  }
  if (day.status === 'rejected')
    throw isThrottled(day.reason) ? new MeterThrottledError(day.reason) : day.reason;
};

/** Adds compute milliseconds of one category to the company's month and day figures (two writes). */
export const addComputeMs = async (
  companyId: string,
  category: ComputeCategory,
  ms: number,
  now: Date,
): Promise<void> => {
  const updates = usageUpdates(companyId, now, { [computeFigure(category)]: ms });
  if (!updates) return;
  await Promise.all([ddb.send(new UpdateCommand(updates.month)), ddb.send(new UpdateCommand(updates.day))]);
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
