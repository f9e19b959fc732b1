import { paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../shared/data/client';
import { toEventRecord } from '../shared/data/events';
import { dispatchEvent } from '../shared/domain/events/dispatch';
import { EVENT_ENTITY } from '../shared/types/events';

/**
 * At local stack start-up no delivery execution survives from the previous run (on AWS executions are
 * durable): every lane still held is released, and the events of the last day are dispatched again, which
 * is idempotent (an existing delivery is not created twice) and starts the lane of every delivery still
 * pending. Events the stream had not yet handed over are dispatched here too. Returns the events seen.
 */
const RECENT_MS = 24 * 3600_000;

const scan = async function* (filter: string, values: Record<string, unknown>) {
  const pages = paginateScan(
    { client: ddb },
    {
      TableName: tableName(),
      FilterExpression: filter,
      ExpressionAttributeNames: { '#entity': 'entity' },
      ExpressionAttributeValues: values,
    },
  );
  for await (const page of pages) yield* page.Items ?? [];
};

export const resumeWebhookDeliveries = async (now: Date): Promise<number> => {
  for await (const lane of scan('#entity = :lane AND attribute_exists(leaseUntil)', {
    ':lane': 'webhook_lane',
  })) {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: lane.pk, sk: lane.sk },
        UpdateExpression: 'REMOVE #owner, leaseUntil',
        ExpressionAttributeNames: { '#owner': 'owner' },
      }),
    );
  }
  const since = new Date(now.getTime() - RECENT_MS).toISOString();
  const events = [];
  for await (const item of scan('#entity = :event AND createdAt >= :since', {
    ':event': EVENT_ENTITY,
    ':since': since,
  }))
    events.push(toEventRecord(item));
  events.sort((a, b) => a.id.localeCompare(b.id));
  for (const event of events) await dispatchEvent(event);
  return events.length;
};
