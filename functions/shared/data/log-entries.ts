import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
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

const ENTITY = 'log_entry';
const BATCH = 25;

/** Writes entries in batches of 25, retrying what DynamoDB leaves unprocessed (bounded, with backoff). */
export const putLogEntries = async (
  entries: { companyId: string; entry: LogEntry; timeEpochMs: number; expiresAt: number }[],
): Promise<void> => {
  for (let i = 0; i < entries.length; i += BATCH) {
    let requests = entries.slice(i, i + BATCH).map(({ companyId, entry, timeEpochMs, expiresAt }) => ({
      PutRequest: {
        Item: {
          ...logEntryKey(companyId, timeEpochMs, entry.requestId),
          entity: ENTITY,
          ttl: expiresAt,
          ...entry,
        },
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
  return (Items ?? []).map(({ pk: _pk, sk: _sk, entity: _e, ttl: _t, ...entry }) => entry as LogEntry);
};
