import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItemsByKey } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';

/**
 * Usage meters: one item per company and UTC month in a partition of its own (never the company profile's),
 * holding the month total of each meter and one attribute per UTC day (`<meter>#d<DD>`), so one `UpdateItem`
 * counts a request in both windows and returns the new month total.
 */
export const usageMonthKey = (companyId: string, month: string) => ({
  pk: `CO#${companyId}#USAGE`,
  sk: `M#${month}`,
});

/** Every meter of the platform; the usage snapshot reports each, zero when nothing was counted. */
export const METERS = [
  'api_requests',
  'transcode_seconds',
  'transcription_seconds',
  'speech_characters',
  'workflow_runs',
] as const;
export type MeterName = (typeof METERS)[number];

/** Compute time is metered per category, in milliseconds (`compute_ms#<category>`). */
export const COMPUTE_CATEGORIES = ['api', 'workers', 'media', 'workflows'] as const;
export type ComputeCategory = (typeof COMPUTE_CATEGORIES)[number];

/** Running totals that are not per month (bytes stored), kept beside the month items. */
export const usageTotalsKey = (companyId: string) => ({ pk: `CO#${companyId}#USAGE`, sk: 'TOTALS' });

export interface UsageWindowFigures {
  meters: Record<MeterName, number>;
  computeMs: Record<ComputeCategory, number>;
  storageBytes: number;
  databaseBytes: number;
}

/** The keys `usageFigures` reads: the UTC month item and the running totals. */
export const usageKeys = (companyId: string, now: Date) => [
  usageMonthKey(companyId, utcMonth(now)),
  usageTotalsKey(companyId),
];

/** Picks the month or day figures out of the month item and the running totals (absent items count 0). */
export const usageFigures = (
  month: Record<string, unknown> | undefined,
  totals: Record<string, unknown> | undefined,
  now: Date,
  granularity: 'month' | 'day',
): UsageWindowFigures => {
  const suffix = granularity === 'day' ? `#d${utcDay(now)}` : '';
  const figure = (name: string) => Number(month?.[`${name}${suffix}`] ?? 0);
  return {
    meters: Object.fromEntries(METERS.map((m) => [m, figure(m)])) as Record<MeterName, number>,
    computeMs: Object.fromEntries(COMPUTE_CATEGORIES.map((c) => [c, figure(`compute_ms#${c}`)])) as Record<
      ComputeCategory,
      number
    >,
    storageBytes: Number(totals?.storageBytes ?? 0),
    databaseBytes: Number(totals?.databaseBytes ?? 0),
  };
};

/** The company's usage figures for the window, in one round trip. */
export const readUsage = async (
  companyId: string,
  now: Date,
  granularity: 'month' | 'day',
): Promise<UsageWindowFigures> => {
  const [month, totals] = await getItemsByKey(usageKeys(companyId, now));
  return usageFigures(month, totals, now, granularity);
};

export const utcMonth = (now: Date): string => now.toISOString().slice(0, 7);
export const utcDay = (now: Date): string => now.toISOString().slice(8, 10);
export const dayAttribute = (meter: MeterName, now: Date): string => `${meter}#d${utcDay(now)}`;

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
        TableName: tableName(),
        Key: usageMonthKey(companyId, utcMonth(now)),
        UpdateExpression: 'ADD #month :amount, #day :amount SET entity = :entity',
        ...(limit === undefined
          ? {}
          : { ConditionExpression: 'attribute_not_exists(#month) OR #month < :limit' }),
        ExpressionAttributeNames: { '#month': meter, '#day': dayAttribute(meter, now) },
        ExpressionAttributeValues: {
          ':amount': amount,
          ':entity': 'usage_month',
          ...(limit === undefined ? {} : { ':limit': limit }),
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.[meter] ?? amount);
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new MeterLimitReachedError(meter);
    throw error;
  }
};

/** Seconds from `now` to the start of the next UTC month: the `Retry-After` of a monthly quota. */
export const secondsToNextUtcMonth = (now: Date): number => {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
};
