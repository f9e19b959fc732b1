import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { putItem, type TransactItem } from './entity';
import { eventExpiry } from './events';
import { indexPartitions } from './keys';
import { TABLE_SHAPE } from './table';
import { cancellationReasons, sendTransaction, transactUnlessFailed } from './transactions';
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
 * `gsi1` partition `CO#<companyId>#WHDL#<endpointId>`, by event id, written with each delivery) and sends a
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
    try {
      await sendTransaction(new TransactWriteCommand({ TransactItems: [pending, { Update: take }] }));
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      // The lane is not idle: the delivery queues behind what it holds.
      if (reasons?.[1]?.Code !== 'ConditionalCheckFailed') throw error;
    }
  }
  return transactUnlessFailed(
    [pending, putItem(LaneEntry, entryKey(lane, eventId), { eventId }), laneEnqueueItem(lane)],
    0,
  );
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
          remove: [
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

/**
 * A page of one endpoint's deliveries, newest event first, older than the event `before` when given; `next`
 * is the event id to pass as `before` for the next page (undefined on the last one).
 */
export const listEndpointDeliveries = async (
  companyId: string,
  endpointId: string,
  options: { limit: number; before?: string },
): Promise<{ deliveries: DeliveryRecord[]; next?: string }> => {
  const { before } = options;
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: TABLE_SHAPE.gsi1.indexName,
      KeyConditionExpression: `gsi1pk = :log${before ? ' AND gsi1sk < :before' : ''}`,
      ExpressionAttributeValues: {
        ':log': indexPartitions.webhookDeliveryLog(companyId, endpointId),
        ...(before ? { ':before': before } : {}),
      },
      ScanIndexForward: false,
      Limit: options.limit + 1,
    }),
  );
  const deliveries = Items.slice(0, options.limit).map(toDelivery);
  const last = deliveries.at(-1);
  return { deliveries, ...(Items.length > options.limit && last ? { next: last.eventId } : {}) };
};
