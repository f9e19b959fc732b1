import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lazy } from '../lazy';
import { createTtlCache } from '../ttl-cache';
import { API_REQUEST_SHARDS } from '../types/meters';
import * as zm from '../zod-mini';
import { type BatchEntry, getItemsByKey } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { decodeItem } from './entity';
import { partitions, sortKeys } from './keys';
import { isThrottled, MeterThrottledError } from './throttling';
import { updateParams } from './update-expression';

/**
 * The month's `api_requests` count, in `API_REQUEST_SHARDS` shard items of the company's usage partition
 * (`M#<yyyy-mm>#S<nn>`, `docs/decisions/0037-sharded-api-requests-meter.md`). A metered request makes one
 * `UpdateItem` of one shard: it ADDs to the shard's month count (`api_requests`) and to the day's count
 * (`d<dd>`, one attribute per UTC day of the month: 31 at most, the item stays under 400 bytes, one write
 * unit). With an allowance each shard takes at most its allotment (`shardAllotment`, the allotments sum to
 * the allowance) and a refused shard hands the request to the others, so the month's total reaches the
 * allowance exactly and never passes it. Readers add the shards to the month item (and the day attributes
 * to the day item), which still holds what was counted before the shards existed.
 */

const shardKey = (companyId: string, month: string, shard: number) => ({
  pk: partitions.usage(companyId),
  sk: sortKeys.usageMonthShard(month, shard),
});

/** The shard's attribute of a UTC date's count (`yyyy-mm-dd` → `d15`). */
const dayAttribute = (date: string) => `d${date.slice(8, 10)}`;

/** Shard `shard`'s part of an allowance: the allowance split as evenly as whole requests allow. */
export const shardAllotment = (limit: number, shard: number): number =>
  Math.floor(limit / API_REQUEST_SHARDS) + (shard < limit % API_REQUEST_SHARDS ? 1 : 0);

/** A shard's month count and its count of each UTC day (`d01`…`d31`). */
export interface ApiRequestShard {
  count: number;
  day: (date: string) => number;
}

const figuresSchema = /* @__PURE__ */ lazy(() =>
  zm.record(zm.string(), zm.union([zm.number(), zm.string()])),
);

/** A usage item's figures by attribute name, 0 where absent (a shard, a family item). */
export const usageFigures = (entity: string, item: Record<string, unknown>) => {
  const figures = decodeItem(entity, figuresSchema(), item);
  return (name: string): number => {
    const value = figures[name];
    return typeof value === 'number' ? value : 0;
  };
};

export const toApiRequestShard = (item: Record<string, unknown>): ApiRequestShard => {
  const number = usageFigures('usage_shard', item);
  return { count: number('api_requests'), day: (date) => number(dayAttribute(date)) };
};

/** The month's shards, for a batch read (beside the month or day item a reader reads anyway). */
export const apiRequestShardEntries = (companyId: string, month: string): BatchEntry<ApiRequestShard>[] =>
  Array.from({ length: API_REQUEST_SHARDS }, (_, shard) => ({
    key: shardKey(companyId, month, shard),
    decode: toApiRequestShard,
  }));

/** The requests the shards counted in their month, or on `date` (`yyyy-mm-dd`) when given. */
export const shardedApiRequests = (shards: readonly (ApiRequestShard | undefined)[], date?: string): number =>
  shards.reduce((sum, shard) => sum + (shard ? (date ? shard.day(date) : shard.count) : 0), 0);

/**
 * The last month whose month item may hold `api_requests` counted before the shards: from the next month on
 * the month item never holds it, and the allowance is split without reading it.
 */
const LAST_MONTH_COUNTED_UNSHARDED = '2026-12';

/** What the month item counted before the shards (it no longer grows), kept 10 minutes per process. */
const unshardedCache = createTtlCache<number>(600_000, 5_000);

const unshardedApiRequests = async (companyId: string, month: string, now: number): Promise<number> => {
  if (month > LAST_MONTH_COUNTED_UNSHARDED) return 0;
  const key = `${companyId}#${month}`;
  const cached = unshardedCache.get(key, now);
  if (cached !== undefined) return cached;
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: { pk: partitions.usage(companyId), sk: sortKeys.usageMonth(month) },
      ProjectionExpression: 'api_requests',
      ConsistentRead: true,
    }),
  );
  const counted = Number(Item?.api_requests ?? 0);
  unshardedCache.set(key, counted, now);
  return counted;
};

/**
 * Shards known to be at their allotment, by company, month and allowance (a count never goes down within a
 * month, so a shard refused at an allowance stays refused at it): a request at the allowance tries each shard
 * once per process, then is refused without a write.
 */
const fullShards = createTtlCache<Set<number>>(3_600_000, 5_000);

type ShardItem = { entity: 'usage_shard'; api_requests: number } & Record<`d${string}`, number>;

/** The update of one shard: `amount` more for the month and the day, within `allotment` when given. */
const shardUpdate = (companyId: string, date: string, shard: number, amount: number, allotment?: number) => ({
  TableName: tableName(),
  Key: shardKey(companyId, date.slice(0, 7), shard),
  ...updateParams<ShardItem>(
    { add: { api_requests: amount, [dayAttribute(date)]: amount }, set: { entity: 'usage_shard' } },
    allotment === undefined
      ? undefined
      : {
          expression: 'attribute_not_exists(#api_requests) OR #api_requests < :allotment',
          values: { ':allotment': allotment - amount + 1 },
        },
  ),
});

const shuffled = (shards: number[]): number[] => {
  const order = [...shards];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
};

const send = async <T>(write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (error) {
    if (isThrottled(error)) throw new MeterThrottledError(error);
    throw error;
  }
};

/**
 * An amount no single shard can take whole, spread over the shards with room in one transaction (each part
 * conditional on its shard's allotment); `false` when the month has no room for it. A transaction refused
 * because a shard filled meanwhile is tried again from a fresh read, three times at most.
 */
const spreadOverShards = async (
  companyId: string,
  date: string,
  amount: number,
  allowance: number,
): Promise<boolean> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const shards = await send(() => getItemsByKey(apiRequestShardEntries(companyId, date.slice(0, 7))));
    const parts: [number, number, number][] = [];
    let left = amount;
    for (const shard of shuffled(shards.map((_, s) => s))) {
      const allotment = shardAllotment(allowance, shard);
      const room = Math.min(left, allotment - (shards[shard]?.count ?? 0));
      if (room <= 0) continue;
      parts.push([shard, room, allotment]);
      left -= room;
      if (left === 0) break;
    }
    if (left > 0) return false;
    try {
      await send(() =>
        ddb.send(
          new TransactWriteCommand({
            TransactItems: parts.map(([shard, part, allotment]) => ({
              Update: shardUpdate(companyId, date, shard, part, allotment),
            })),
          }),
        ),
      );
      return true;
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      if (!reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) throw error;
    }
  }
  throw new MeterThrottledError(new Error('the shards of the month kept changing under the spread'));
};

/**
 * Adds `amount` requests to the month and day of `date` (`yyyy-mm-dd`) in one shard, chosen at random; with
 * `limit`, only while the month stays within it: shards are tried in a random order until one has room in
 * its allotment (a shard seen full is skipped), an amount no shard can take whole is spread over several,
 * and `false` is answered only when the month's total has no room for `amount`. A throttled write throws
 * `MeterThrottledError`.
 */
export const addApiRequests = async (
  companyId: string,
  amount: number,
  date: string,
  now: number,
  limit?: number,
): Promise<boolean> => {
  if (limit === undefined) {
    const shard = Math.floor(Math.random() * API_REQUEST_SHARDS);
    await send(() => ddb.send(new UpdateCommand(shardUpdate(companyId, date, shard, amount))));
    return true;
  }
  const month = date.slice(0, 7);
  const allowance = Math.max(0, limit - (await send(() => unshardedApiRequests(companyId, month, now))));
  const fullKey = `${companyId}#${month}#${allowance}`;
  const full = fullShards.get(fullKey, now) ?? new Set<number>();
  fullShards.set(fullKey, full, now);
  const open = Array.from({ length: API_REQUEST_SHARDS }, (_, s) => s).filter((s) => !full.has(s));
  for (const shard of shuffled(open)) {
    const allotment = shardAllotment(allowance, shard);
    if (allotment < amount) {
      if (allotment === 0) full.add(shard);
      continue;
    }
    try {
      await send(() => ddb.send(new UpdateCommand(shardUpdate(companyId, date, shard, amount, allotment))));
      return true;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      if (amount === 1) full.add(shard);
    }
  }
  if (amount === 1 || full.size === API_REQUEST_SHARDS) return false;
  return spreadOverShards(companyId, date, amount, allowance);
};
