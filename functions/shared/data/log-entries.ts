import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { LOG_SHARDS } from '../types/log-entries';
import * as zm from '../zod-mini';
import { ddb, queryAll, tableName } from './client';
import { defineEntity } from './entity';
import { partitions, sortKeys } from './keys';

/**
 * The `log_entries` audit trail: one item per API request, sort key `<epoch ms, 15 digits>#<requestId>`,
 * expiring by TTL after the plan's retention. The company's entries are spread over partitions of one UTC day
 * and one of `LOG_SHARDS` shards (the shard chosen from the request id, so a retried write lands on the same
 * item), and the company's day list (`CO#<companyId>#LOGDAYS`) names the days that hold entries, so a list
 * merges only those. Entries written before the sharding stay in the single partition `CO#<companyId>#LOG`
 * (read as one more source until they expire). `docs/decisions/0038-sharded-audit-partition.md`.
 */

/** The UTC day `yyyymmdd` of an epoch-ms time. */
export const logDayOf = (timeEpochMs: number): string =>
  new Date(timeEpochMs).toISOString().slice(0, 10).replaceAll('-', '');

/** The shard of a request id (FNV-1a, so every writer and reader agrees). */
export const logShardOf = (requestId: string): string => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < requestId.length; i++) {
    hash ^= requestId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return String(hash % LOG_SHARDS);
};

export const logEntryKey = (companyId: string, timeEpochMs: number, requestId: string) => ({
  pk: partitions.logEntryShards(companyId, logDayOf(timeEpochMs), logShardOf(requestId)),
  sk: sortKeys.logEntry(timeEpochMs, requestId),
});

/** Key of an entry written before the sharding. */
export const legacyLogEntryKey = (companyId: string, timeEpochMs: number, requestId: string) => ({
  pk: partitions.logEntries(companyId),
  sk: sortKeys.logEntry(timeEpochMs, requestId),
});

/** The item naming a day that holds entries of the company; it expires with the day's last entry. */
export const logDayKey = (companyId: string, day: string) => ({
  pk: partitions.logEntryDays(companyId),
  sk: day,
});

export const logDayItem = (companyId: string, day: string, ttl: number) => ({
  ...logDayKey(companyId, day),
  entity: 'log_day',
  ttl,
});

/** The days (`yyyymmdd`, ascending) that hold entries of the company, from `from` to `to` inclusive. */
export const listLogDays = async (companyId: string, from?: string, to?: string): Promise<string[]> =>
  (
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': partitions.logEntryDays(companyId),
        ':from': from ?? '0',
        ':to': to ?? '99999999',
      },
      ProjectionExpression: 'sk',
    })
  ).map((item) => String(item.sk));

/** The partitions of the company's entries (with their day): the pre-sharding one, then each shard of each day. */
export const logPartitionsOf = (
  companyId: string,
  days: readonly string[],
): { pk: string; day?: string }[] => [
  { pk: partitions.logEntries(companyId) },
  ...days.flatMap((day) =>
    Array.from({ length: LOG_SHARDS }, (_, shard) => ({
      pk: partitions.logEntryShards(companyId, day, String(shard)),
      day,
    })),
  ),
];

export interface LogEntry {
  requestId: string;
  time: string;
  method: string;
  path: string;
  route: string | null;
  status: number;
  latencyMs: number | null;
  authMethod: string | null;
  keyId: string | null;
  sourceIp: string | null;
  userAgent: string | null;
}

/**
 * The shipper writes every member (`null` when unknown); an entry written through Dynadata (the self-hosted
 * switch) may leave the optional ones out, and reads as `null` there.
 */
const optionalNull = <T extends zm.ZodMiniType>(schema: T) => zm.optional(zm.nullable(schema));

export const LogEntryItem = /* @__PURE__ */ defineEntity({
  name: 'log_entry',
  key: logEntryKey,
  get schema() {
    return zm.object({
      requestId: zm.string(),
      time: zm.string(),
      method: zm.string(),
      path: zm.string(),
      route: optionalNull(zm.string()),
      status: zm.number(),
      latencyMs: optionalNull(zm.number()),
      authMethod: optionalNull(zm.string()),
      keyId: optionalNull(zm.string()),
      sourceIp: optionalNull(zm.string()),
      userAgent: optionalNull(zm.string()),
    });
  },
});

export const toLogEntry = (item: Record<string, unknown>): LogEntry => {
  const entry = LogEntryItem.decode(item);
  return {
    ...entry,
    route: entry.route ?? null,
    latencyMs: entry.latencyMs ?? null,
    authMethod: entry.authMethod ?? null,
    keyId: entry.keyId ?? null,
    sourceIp: entry.sourceIp ?? null,
    userAgent: entry.userAgent ?? null,
  };
};
const BATCH = 25;

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };

/** Writes items in batches of 25, retrying what DynamoDB leaves unprocessed (bounded, with backoff). */
const batchPut = async (items: Record<string, unknown>[]): Promise<void> => {
  for (let i = 0; i < items.length; i += BATCH) {
    let requests: WriteRequest[] = items.slice(i, i + BATCH).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 25));
      if (attempt > 6) throw new Error(`log entries left unprocessed after ${attempt} attempts`);
      const { UnprocessedItems } = await ddb.send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }),
      );
      requests = (UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
    }
  }
};

/** Day items this container wrote, with the expiry written (written again only to extend it). */
const daysWritten = new Map<string, number>();

/**
 * Writes entries into their day's shard. The day items of the batch go first (once per company, day and
 * container, or again when a later expiry extends them), so no entry is ever in a day a list does not read.
 */
export const putLogEntries = async (
  entries: { companyId: string; entry: LogEntry; timeEpochMs: number; expiresAt: number }[],
): Promise<void> => {
  const days = new Map<string, { companyId: string; day: string; ttl: number }>();
  for (const { companyId, timeEpochMs, expiresAt } of entries) {
    const day = logDayOf(timeEpochMs);
    const id = `${companyId}#${day}`;
    const ttl = Math.max(expiresAt, days.get(id)?.ttl ?? 0);
    if ((daysWritten.get(id) ?? 0) < ttl) days.set(id, { companyId, day, ttl });
  }
  await batchPut([...days.values()].map(({ companyId, day, ttl }) => logDayItem(companyId, day, ttl)));
  for (const [id, { ttl }] of days) daysWritten.set(id, ttl);
  await batchPut(
    entries.map(({ companyId, entry, timeEpochMs, expiresAt }) =>
      LogEntryItem.item(logEntryKey(companyId, timeEpochMs, entry.requestId), entry, { ttl: expiresAt }),
    ),
  );
};
