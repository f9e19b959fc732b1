import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { COMPUTE_CATEGORIES, type ComputeCategory, METERS, type MeterName } from '../types/meters';
import * as zm from '../zod-mini';
import { type BatchEntry, getItemsByKey } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { decodeItem } from './entity';
import { partitions, sortKeys } from './keys';

/**
 * Usage meters: one item per company and UTC month in a partition of its own (never the company profile's),
 * holding the month total of each meter and one attribute per UTC day (`<meter>#d<DD>`), so one `UpdateItem`
 * counts a request in both windows and returns the new month total. Beside the month items, the `TOTALS` item
 * holds the running totals that are not per month (`storageBytes`, `databaseBytes`).
 *
 * This module owns every write to those items. Other modules that must count something inside their own
 * transaction (a billed job, a recorded object, a Dynadata item) put one of the transaction items exported here
 * into it: `addToMeterItem`, `addStorageBytesItem`, `addDatabaseBytesItem`.
 */
export const usageMonthKey = (companyId: string, month: string) => ({
  pk: partitions.usage(companyId),
  sk: sortKeys.usageMonth(month),
});

/** Running totals that are not per month (bytes stored), kept beside the month items. */
export const usageTotalsKey = (companyId: string) => ({
  pk: partitions.usage(companyId),
  sk: sortKeys.usageTotals,
});

export const utcMonth = (now: Date): string => now.toISOString().slice(0, 7);
export const utcDay = (now: Date): string => now.toISOString().slice(8, 10);

/** A counted attribute of the month item: a meter or a compute category. */
type MonthFigure = MeterName | `compute_ms#${ComputeCategory}`;
const computeFigure = (category: ComputeCategory): MonthFigure => `compute_ms#${category}`;
export const dayAttribute = (figure: MonthFigure, now: Date): string => `${figure}#d${utcDay(now)}`;

/** The usage month as stored: month totals, and per-day figures of every day counted so far. */
export interface UsageMonth {
  /** Month total of an attribute (a meter or `compute_ms#<category>`), or its figure of one UTC day. */
  figure: (attribute: MonthFigure, day?: string) => number;
}

/** The month item's attributes: its figures are numbers, its key and entity name text. */
const usageMonthSchema = zm.record(zm.string(), zm.union([zm.number(), zm.string()]));
const usageTotalsSchema = zm.object({
  storageBytes: zm.optional(zm.number()),
  databaseBytes: zm.optional(zm.number()),
});

export const toUsageMonth = (item: Record<string, unknown>): UsageMonth => {
  const month = decodeItem('usage_month', usageMonthSchema, item);
  return {
    figure: (attribute, day) => {
      const value = month[day === undefined ? attribute : `${attribute}#d${day}`];
      return typeof value === 'number' ? value : 0;
    },
  };
};

export interface UsageTotals {
  storageBytes: number;
  databaseBytes: number;
}

export const toUsageTotals = (item: Record<string, unknown>): UsageTotals => {
  const totals = decodeItem('usage_totals', usageTotalsSchema, item);
  return { storageBytes: totals.storageBytes ?? 0, databaseBytes: totals.databaseBytes ?? 0 };
};

const EMPTY_MONTH = toUsageMonth({});
const EMPTY_TOTALS = toUsageTotals({});

/** The usage month of `now`, for a batch read. */
export const usageMonthEntry = (companyId: string, now: Date): BatchEntry<UsageMonth> => ({
  key: usageMonthKey(companyId, utcMonth(now)),
  decode: toUsageMonth,
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

/** Picks the month or day figures out of the month item and the running totals (absent items count 0). */
export const usageFigures = (
  month: UsageMonth | undefined,
  totals: UsageTotals | undefined,
  now: Date,
  granularity: 'month' | 'day',
): UsageWindowFigures => {
  const day = granularity === 'day' ? utcDay(now) : undefined;
  const { figure } = month ?? EMPTY_MONTH;
  return {
    meters: Object.fromEntries(METERS.map((m) => [m, figure(m, day)])) as Record<MeterName, number>,
    computeMs: Object.fromEntries(
      COMPUTE_CATEGORIES.map((c) => [c, figure(computeFigure(c), day)]),
    ) as Record<ComputeCategory, number>,
    ...(totals ?? EMPTY_TOTALS),
  };
};

/** The company's usage figures for the window, in one round trip. */
export const readUsage = async (
  companyId: string,
  now: Date,
  granularity: 'month' | 'day',
): Promise<UsageWindowFigures> => {
  const [month, totals] = await getItemsByKey([usageMonthEntry(companyId, now), usageTotalsEntry(companyId)]);
  return usageFigures(month, totals, now, granularity);
};

/**
 * The one update of a month figure: adds `amount` to the month total and to the day's attribute; with a
 * `limit`, only while the month total is below it.
 */
const monthFigureUpdate = (
  companyId: string,
  figure: MonthFigure,
  amount: number,
  now: Date,
  limit?: number,
) => ({
  TableName: tableName(),
  Key: usageMonthKey(companyId, utcMonth(now)),
  UpdateExpression: 'ADD #month :amount, #day :amount SET entity = :entity',
  ...(limit === undefined ? {} : { ConditionExpression: 'attribute_not_exists(#month) OR #month < :limit' }),
  ExpressionAttributeNames: { '#month': figure, '#day': dayAttribute(figure, now) },
  ExpressionAttributeValues: {
    ':amount': amount,
    ':entity': 'usage_month',
    ...(limit === undefined ? {} : { ':limit': limit }),
  },
});

/**
 * Transaction item: adds `amount` to a meter for the UTC month and day of `now` (billing inside a write). With
 * `limit`, only while the month total stays within it after the addition: the transaction is cancelled
 * otherwise, so concurrent writes can never bill past an allowance.
 */
export const addToMeterItem = (
  companyId: string,
  meter: MeterName,
  amount: number,
  now: Date,
  options: { limit?: number } = {},
) => ({
  // `#month < limit - amount + 1` is `#month + amount <= limit` for the whole units meters count.
  Update: monthFigureUpdate(
    companyId,
    meter,
    amount,
    now,
    options.limit === undefined ? undefined : options.limit - amount + 1,
  ),
});

export class MeterLimitReachedError extends Error {
  constructor(meter: MeterName) {
    super(`Monthly allowance of ${meter} reached`);
    this.name = 'MeterLimitReachedError';
  }
}

/**
 * Adds `amount` to the meter for the current UTC month and day and returns the new month total. With a
 * `limit`, the write is conditional: a month total already at the limit is left unchanged and
 * `MeterLimitReachedError` is thrown, so refused requests are not counted.
 */
export const addToMeter = async (
  companyId: string,
  meter: MeterName,
  amount: number,
  now: Date,
  limit?: number,
): Promise<number> => {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        ...monthFigureUpdate(companyId, meter, amount, now, limit),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.[meter] ?? amount);
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new MeterLimitReachedError(meter);
    throw error;
  }
};

/** Transaction item: adds compute milliseconds of one category (compute billed inside a write). */
export const addComputeMsItem = (companyId: string, category: ComputeCategory, ms: number, now: Date) => ({
  Update: monthFigureUpdate(companyId, computeFigure(category), ms, now),
});

/** Adds compute milliseconds of one category to the company's month and day figures. */
export const addComputeMs = async (
  companyId: string,
  category: ComputeCategory,
  ms: number,
  now: Date,
): Promise<void> => {
  await ddb.send(new UpdateCommand(monthFigureUpdate(companyId, computeFigure(category), ms, now)));
};

const totalsUpdate = (companyId: string, total: keyof UsageTotals, delta: number, headroom?: number) => ({
  Update: {
    TableName: tableName(),
    Key: usageTotalsKey(companyId),
    UpdateExpression: 'ADD #total :delta SET entity = :entity',
    ...(headroom === undefined
      ? {}
      : { ConditionExpression: 'attribute_not_exists(#total) OR #total <= :headroom' }),
    ExpressionAttributeNames: { '#total': total },
    ExpressionAttributeValues: {
      ':delta': delta,
      ':entity': 'usage_totals',
      ...(headroom === undefined ? {} : { ':headroom': headroom }),
    },
  },
});

/**
 * Transaction item: adds a recorded object's bytes to `storageBytes`; with `headroom` (the allowance minus the
 * object's size), only while the total is at most that, so the allowance is never passed.
 */
export const addStorageBytesItem = (companyId: string, bytes: number, options: { headroom?: number } = {}) =>
  totalsUpdate(companyId, 'storageBytes', bytes, options.headroom);

/** Transaction item: adds a Dynadata write's byte difference (negative on delete) to `databaseBytes`. */
export const addDatabaseBytesItem = (companyId: string, delta: number) =>
  totalsUpdate(companyId, 'databaseBytes', delta);

/** Seconds from `now` to the start of the next UTC month: the `Retry-After` of a monthly quota. */
export const secondsToNextUtcMonth = (now: Date): number => {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
};
