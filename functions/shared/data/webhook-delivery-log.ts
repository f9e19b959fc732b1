import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItemsByKey } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { eventExpiry } from './events';
import { indexPartitions } from './keys';
import { TABLE_SHAPE } from './table';
import { type DeliveryRecord, deliveryKey, getDelivery, toDelivery } from './webhook-deliveries';
import { type DeliveryTarget, deliveryLogIndexKey, WebhookDelivery } from './webhook-delivery-entities';

/**
 * What a company does with an endpoint's deliveries beyond watching them: reads its log (the deliveries in
 * the `work` index partition `CO#<companyId>#WHDL#<endpointId>`, by event id, written with each delivery) and sends a
 * delivery again (the same item made `pending`, its `round` counted up).
 */
/**
 * Makes the delivery of an event to an endpoint `pending` again (a redelivery): its attempts start anew,
 * with a new retry window, the same event id, and one more `round` (the redelivery's queue message is named
 * after it). A delivery that does not exist yet (an endpoint the event was not sent to) is created. One
 * conditional update; when the delivery is pending already (it is being sent, or waits in its group)
 * nothing is written. Either way the answer is the round its message carries.
 */
export const requeueDelivery = async (options: {
  target: DeliveryTarget;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
}): Promise<{ requeued: boolean; round: number }> => {
  const { target, eventId } = options;
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({ ...pendingAgain(options), ReturnValues: 'UPDATED_NEW' }),
    );
    return { requeued: true, round: Number(Attributes?.round ?? 1) };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
  const found = await getDelivery(target.companyId, eventId, target.endpointId);
  return { requeued: false, round: found?.round ?? 0 };
};

/** The delivery made `pending` again, unless it is (`requeueDelivery`). */
const pendingAgain = (options: {
  target: DeliveryTarget;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
}) => {
  const { target, eventId } = options;
  return {
    TableName: tableName(),
    Key: deliveryKey(target.companyId, eventId, target.endpointId),
    ...WebhookDelivery.update(
      {
        set: {
          entity: WebhookDelivery.name,
          eventId,
          endpointId: target.endpointId,
          resourceId: target.resourceId,
          eventType: options.eventType,
          status: 'pending',
          attempts: 0,
          ttl: eventExpiry(options.eventCreatedAt),
          ...deliveryLogIndexKey(target.companyId, target.endpointId, eventId),
        },
        add: { round: 1 },
        // A delivery written before the log moved to `work` leaves its place in `gsi1` for its new one.
        remove: [
          TABLE_SHAPE.gsi1.partitionKey,
          TABLE_SHAPE.gsi1.sortKey,
          'lastStatus',
          'lastAttemptAt',
          'lastDurationMs',
          'nextAttemptAt',
          'firstAttemptAt',
          'finishedAt',
        ],
      },
      {
        expression: 'attribute_not_exists(pk) OR #status <> :pending',
        values: { ':pending': 'pending' },
      },
    ),
  };
};

/** The newest `limit` sort keys of the log in `index` (the keys, or whole items in `gsi1`), older than `before`. */
const logPage = async (
  index: (typeof TABLE_SHAPE)['work' | 'gsi1'],
  log: string,
  before: string | undefined,
  limit: number,
): Promise<Record<string, unknown>[]> => {
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.indexName,
      KeyConditionExpression: `#p = :log${before ? ' AND #s < :before' : ''}`,
      ExpressionAttributeNames: { '#p': index.partitionKey, ...(before ? { '#s': index.sortKey } : {}) },
      ExpressionAttributeValues: { ':log': log, ...(before ? { ':before': before } : {}) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return Items;
};

/**
 * A page of one endpoint's deliveries, newest event first, older than the event `before` when given; `next`
 * is the event id to pass as `before` for the next page (undefined on the last one). The log's keys come from
 * the keys-only `work` index and the deliveries are read by key; deliveries written before the log moved there
 * are still in `gsi1` (whole) until their event expires, and the two are merged by event id.
 */
export const listEndpointDeliveries = async (
  companyId: string,
  endpointId: string,
  options: { limit: number; before?: string },
): Promise<{ deliveries: DeliveryRecord[]; next?: string }> => {
  const { before, limit } = options;
  const log = indexPartitions.webhookDeliveryLog(companyId, endpointId);
  const [keys, legacy] = await Promise.all([
    logPage(TABLE_SHAPE.work, log, before, limit + 1),
    logPage(TABLE_SHAPE.gsi1, log, before, limit + 1),
  ]);
  const found = new Map<string, { key: { pk: string; sk: string } } | { item: Record<string, unknown> }>();
  for (const key of keys) found.set(String(key.worksk), { key: { pk: String(key.pk), sk: String(key.sk) } });
  for (const item of legacy) if (!found.has(String(item.gsi1sk))) found.set(String(item.gsi1sk), { item });
  const newest = [...found.keys()].sort().reverse();
  const shown = newest.slice(0, limit);
  const toRead = shown.flatMap((at) => {
    const entry = found.get(at);
    return entry && 'key' in entry ? [{ key: entry.key, decode: (item: unknown) => item }] : [];
  });
  const read = new Map(
    (await getItemsByKey(toRead))
      .filter((item) => item !== undefined)
      .map((item) => [String((item as Record<string, unknown>).worksk), item as Record<string, unknown>]),
  );
  const deliveries = shown.flatMap((at) => {
    const entry = found.get(at);
    const item = entry && 'item' in entry ? entry.item : read.get(at);
    return item ? [toDelivery(item)] : [];
  });
  const last = shown.at(-1);
  return { deliveries, ...(newest.length > limit && last ? { next: last } : {}) };
};
