import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getItemsByKey } from './batch';
import { ddb, tableName } from './client';
import { putItem, type TransactItem } from './entity';
import { eventExpiry } from './events';
import { indexPartitions } from './keys';
import { TABLE_SHAPE } from './table';
import { cancellationReasons, sendTransaction } from './transactions';
import {
  type DeliveryRecord,
  deliveryKey,
  entryKey,
  idleLaneTake,
  type LaneRef,
  laneEnqueueItem,
  toDelivery,
} from './webhook-deliveries';
import { deliveryLogIndexKey, LaneEntry, WebhookDelivery } from './webhook-delivery-entities';

/**
 * What a company does with an endpoint's deliveries beyond watching them: reads its log (the deliveries in
 * the `work` index partition `CO#<companyId>#WHDL#<endpointId>`, by event id, written with each delivery) and sends a
 * delivery again (the same item made `pending` and queued in its lane, like `enqueueDelivery` does).
 */
/**
 * Makes the delivery of an event to an endpoint `pending` again and puts it in its lane, in one transaction
 * (a redelivery): its attempts start anew, with a new retry window, and the same event id. A delivery that
 * does not exist yet (an endpoint the event was not sent to) is created. A lane found idle is taken for the
 * delivery (`idleLaneTake`, the idle-lane fast path: no entry, no count) by `takeIdle.owner`, the token of
 * the message sent next; a lane held, with entries or carrying another delivery gets an entry and its count
 * instead. False when the delivery is pending already (it is being sent, or waits in its lane: nothing
 * written).
 */
export const requeueDelivery = async (options: {
  lane: LaneRef;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  takeIdle?: { owner: string; leaseUntil: Date };
}): Promise<boolean> => {
  const { lane, eventId, takeIdle } = options;
  const pending = pendingAgain(options);
  if (takeIdle) {
    const take = idleLaneTake(lane, eventId, takeIdle.owner, takeIdle.leaseUntil);
    const taken = await written([pending, { Update: take }]);
    // `lane`: the lane is not idle, the delivery queues behind what it holds.
    if (taken !== 'lane') return taken === 'written';
  }
  const entry = entryKey(lane, eventId);
  for (let attempt = 0; attempt < LANE_MOVES; attempt++) {
    const absent = { expression: 'attribute_not_exists(pk)' };
    const queued = await written([
      pending,
      putItem(LaneEntry, entry, { eventId }, { condition: absent }),
      laneEnqueueItem(lane),
    ]);
    if (queued !== 'lane') return queued === 'written';
    // Its entry is still there (an owner ended it and stopped before taking it out): made pending, it is
    // sent from that entry, which is counted already. Gone meanwhile: queued anew.
    const check = { TableName: tableName(), Key: entry, ConditionExpression: 'attribute_exists(pk)' };
    const kept = await written([pending, { ConditionCheck: check }]);
    if (kept !== 'lane') return kept === 'written';
  }
  throw new Error(`the lane of ${eventId} kept changing under its redelivery`);
};

/** Tries before a redelivery gives up on a lane whose entry comes and goes under it (never in practice). */
const LANE_MOVES = 3;

/**
 * A redelivery's transaction, the delivery made pending first: `pending` when that failed (it is pending
 * already, nothing written), `lane` when the lane's action failed.
 */
const written = async (items: TransactItem[]): Promise<'written' | 'pending' | 'lane'> => {
  try {
    await sendTransaction(new TransactWriteCommand({ TransactItems: items }));
    return 'written';
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return 'pending';
    if (reasons?.slice(1).some((r) => r.Code === 'ConditionalCheckFailed')) return 'lane';
    throw error;
  }
};

/** The delivery made `pending` again, unless it is (`requeueDelivery`). */
const pendingAgain = (options: {
  lane: LaneRef;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
}): TransactItem => {
  const { lane, eventId } = options;
  return {
    Update: {
      TableName: tableName(),
      Key: deliveryKey(lane.companyId, eventId, lane.endpointId),
      ...WebhookDelivery.update(
        {
          set: {
            entity: WebhookDelivery.name,
            eventId,
            endpointId: lane.endpointId,
            resourceId: lane.resourceId,
            eventType: options.eventType,
            status: 'pending',
            attempts: 0,
            ttl: eventExpiry(options.eventCreatedAt),
            ...deliveryLogIndexKey(lane.companyId, lane.endpointId, eventId),
          },
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
    },
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
