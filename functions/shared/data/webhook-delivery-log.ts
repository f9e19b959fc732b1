import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { putItem } from './entity';
import { eventExpiry } from './events';
import { indexPartitions } from './keys';
import { TABLE_SHAPE } from './table';
import { transactUnlessFailed } from './transactions';
import {
  type DeliveryRecord,
  deliveryKey,
  entryKey,
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
 * Makes the delivery of an event to an endpoint `pending` again and queues it in its lane, in one transaction
 * (a redelivery): its attempts start anew, with a new retry window, and the same event id. A delivery that
 * does not exist yet (an endpoint the event was not sent to) is created. False when it is pending already
 * (it is being sent: nothing written).
 */
export const requeueDelivery = (options: {
  lane: LaneRef;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
}): Promise<boolean> => {
  const { lane, eventId } = options;
  return transactUnlessFailed(
    [
      {
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
      },
      putItem(LaneEntry, entryKey(lane, eventId), { eventId }),
      laneEnqueueItem(lane),
    ],
    0,
  );
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
