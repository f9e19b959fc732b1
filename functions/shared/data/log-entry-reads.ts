import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LOG_SHARDS } from '../types/log-entries';
import { ddb, tableName } from './client';
import { type LogEntry, listLogDays, logDayOf, logPartitionsOf, toLogEntry } from './log-entries';
import { mergeSorted } from './merge-sorted';

/**
 * Reads of the sharded audit trail (`log-entries.ts`): the partitions of the days in range (and the
 * pre-sharding partition), merged in sort-key order by `mergeSorted`.
 */
export interface LogReadOptions {
  forward: boolean;
  /** Inclusive sort-key bounds (a filter's key range). */
  lower?: string;
  upper?: string;
  /** Resume after this sort key (exclusive): a cursor's position. */
  after?: string;
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
  want: number;
  maxExamined?: number;
}

const padMs = (ms: number): string => String(ms).padStart(15, '0');

const dayStartMs = (day: string): number =>
  Date.parse(`${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}T00:00:00Z`);

/** 9999-12-31T23:59:59.999Z: days past it would not sort as digits. */
const LAST_MS = 253_402_300_799_999;

/** The day of a sort-key bound (its leading epoch ms), or undefined when it names none. */
const dayOfBound = (key: string | undefined): string | undefined => {
  const ms = key === undefined ? undefined : /^\d{15}/.exec(key)?.[0];
  return ms === undefined ? undefined : logDayOf(Math.min(Number(ms), LAST_MS));
};

/** The inclusive sort-key range of one read: the filter's, narrowed by the resume position. */
const rangeOf = (o: LogReadOptions, after: string | undefined): { lower?: string; upper?: string } => {
  let { lower, upper } = o;
  if (after !== undefined) {
    if (o.forward && (lower === undefined || after > lower)) lower = after;
    if (!o.forward && (upper === undefined || after < upper)) upper = after;
  }
  return { ...(lower === undefined ? {} : { lower }), ...(upper === undefined ? {} : { upper }) };
};

/** One Query over one partition, in range and after `after` (exclusive). */
export const queryLogPartition = async (
  pk: string,
  o: LogReadOptions,
  after: string | undefined,
  limit: number,
  startKey?: Record<string, unknown>,
  countOnly = false,
) => {
  const { lower, upper } = rangeOf(o, after);
  if (lower !== undefined && upper !== undefined && lower > upper) return { items: [], count: 0, scanned: 0 };
  const condition =
    lower !== undefined && upper !== undefined
      ? ' AND #sk BETWEEN :klo AND :khi'
      : lower !== undefined
        ? ' AND #sk >= :klo'
        : upper !== undefined
          ? ' AND #sk <= :khi'
          : '';
  const result = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: `#pk = :pk${condition}`,
      ...(o.filter ? { FilterExpression: o.filter.expression } : {}),
      ExpressionAttributeNames: {
        '#pk': 'pk',
        ...(condition ? { '#sk': 'sk' } : {}),
        ...(o.filter?.names ?? {}),
      },
      ExpressionAttributeValues: {
        ':pk': pk,
        ...(lower === undefined ? {} : { ':klo': lower }),
        ...(upper === undefined ? {} : { ':khi': upper }),
        ...(o.filter?.values ?? {}),
      },
      ScanIndexForward: o.forward,
      Limit: limit,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      ...(countOnly ? { Select: 'COUNT' as const } : {}),
    }),
  );
  // The item at the resume position itself was given already (the range bounds are inclusive).
  const items = (result.Items ?? []).filter((item) => item.sk !== after);
  const count = (result.Count ?? 0) - (result.Items ?? []).length + items.length;
  return {
    items,
    count,
    scanned: Math.max(result.ScannedCount ?? 0, 1),
    ...(result.LastEvaluatedKey ? { lastKey: result.LastEvaluatedKey } : {}),
  };
};

/** The partitions a read of this range merges, in key order (pre-sharding first, then by day and shard). */
export const logPartitionsInRange = async (companyId: string, o: Pick<LogReadOptions, 'lower' | 'upper'>) =>
  logPartitionsOf(companyId, await listLogDays(companyId, dayOfBound(o.lower), dayOfBound(o.upper)));

/** Raw items in sort-key order, and where the next page resumes (undefined: none left). */
export const readLogEntries = async (
  companyId: string,
  o: LogReadOptions,
): Promise<{ items: Record<string, unknown>[]; resumeAfter?: string }> => {
  const pks = await logPartitionsInRange(companyId, o);
  const sources = pks.map(({ pk, day }) => {
    const start = day === undefined ? undefined : dayStartMs(day);
    return {
      ...(start === undefined
        ? {}
        : { bound: o.forward ? padMs(start) : `${padMs(start + 86_399_999)}#\uffff` }),
      read: async (after: string | undefined, limit: number) => {
        const page = await queryLogPartition(pk, o, after ?? o.after, limit);
        const lastKey = page.lastKey?.sk;
        return {
          items: page.items as Record<string, unknown>[],
          ...(lastKey === undefined ? {} : { last: String(lastKey) }),
          examined: page.scanned,
        };
      },
    };
  });
  return mergeSorted({
    sources,
    key: (item) => String(item.sk),
    forward: o.forward,
    want: o.want,
    // Request ids spread evenly over the shards: each read asks for its share of the page and one more.
    readLimit: o.filter ? Math.max(o.want + 1, 100) : Math.ceil(o.want / LOG_SHARDS) + 1,
    ...(o.maxExamined === undefined ? {} : { maxExamined: o.maxExamined }),
  });
};

/** Newest first, merged over the company's partitions. */
export const listLogEntries = async (companyId: string, limit = 25): Promise<LogEntry[]> =>
  (await readLogEntries(companyId, { forward: false, want: limit })).items.map(toLogEntry);
