import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod-mini';
import { ddb, tableName } from './client';
import { defineEntity } from './entity';
import { partitions, sortKeys } from './keys';

/**
 * The `log_entries` audit trail: one item per API request in the company's own partition, sorted by time
 * (zero-padded epoch milliseconds, then the request id), expiring by TTL after the plan's retention.
 */
export const logEntryKey = (companyId: string, timeEpochMs: number, requestId: string) => ({
  pk: partitions.logEntries(companyId),
  sk: sortKeys.logEntry(timeEpochMs, requestId),
});

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

const toLogEntry = (item: Record<string, unknown>): LogEntry => {
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

/** Writes entries in batches of 25, retrying what DynamoDB leaves unprocessed (bounded, with backoff). */
export const putLogEntries = async (
  entries: { companyId: string; entry: LogEntry; timeEpochMs: number; expiresAt: number }[],
): Promise<void> => {
  for (let i = 0; i < entries.length; i += BATCH) {
    let requests = entries.slice(i, i + BATCH).map(({ companyId, entry, timeEpochMs, expiresAt }) => ({
      PutRequest: {
        Item: LogEntryItem.item(logEntryKey(companyId, timeEpochMs, entry.requestId), entry, {
          ttl: expiresAt,
        }),
      },
    }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 25));
      if (attempt > 6) throw new Error(`log entries left unprocessed after ${attempt} attempts`);
      const { UnprocessedItems } = await ddb.send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }),
      );
      requests = (UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  }
};

/** Newest first. */
export const listLogEntries = async (companyId: string, limit = 25): Promise<LogEntry[]> => {
  const { Items } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': logEntryKey(companyId, 0, '').pk },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (Items ?? []).map(toLogEntry);
};
