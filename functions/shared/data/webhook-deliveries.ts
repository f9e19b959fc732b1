import {
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { putItem } from './entity';
import { eventExpiry, eventPartition } from './events';
import { sortKeys } from './keys';
import { ifAbsent } from './update-expression';
import { type DeliveryTarget, deliveryLogIndexKey, WebhookDelivery } from './webhook-delivery-entities';

export type { DeliveryTarget } from './webhook-delivery-entities';

/**
 * Deliveries of events to webhook endpoints: `DL#<eventId>#<endpointId>` (in the event's partition), one per
 * event and endpoint, written once (conditional put: a stream record handled twice creates no second
 * delivery), with its attempts, last status and outcome (`pending` → `delivered` | `failed`). Expires with
 * the event. Each is also in its endpoint's log, `workpk = CO#<companyId>#WHDL#<endpointId>` ordered by
 * event id, in the keys-only `work` index so that its updates write no index entry (older deliveries have
 * it in `gsi1`; `webhook-delivery-log.ts`, which also sends a delivery again). Their order per endpoint and
 * resource is the `webhook-delivery` FIFO queue's (`domain/events/delivery-queue.ts`), not the table's.
 */
export const deliveryKey = (companyId: string, eventId: string, endpointId: string) =>
  WebhookDelivery.key(eventPartition(companyId), eventId, endpointId);

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  eventId: string;
  endpointId: string;
  eventType?: string;
  status: DeliveryStatus;
  attempts: number;
  /** The last answer: an HTTP status, or a short reason (`network_error`, `endpoint_disabled`, ...). */
  lastStatus: number | string | null;
  firstAttemptAt?: string;
  lastAttemptAt?: string;
  /** How long the last answer took, in milliseconds (absent when no request was sent). */
  lastDurationMs?: number;
  nextAttemptAt?: string;
  finishedAt?: string;
  /** Redeliveries so far (0 for the first sending). */
  round: number;
}

export const toDelivery = (item: Record<string, unknown>): DeliveryRecord => {
  const { resourceId: _resourceId, attempts, lastStatus, round, ...delivery } = WebhookDelivery.decode(item);
  return { ...delivery, attempts: attempts ?? 0, lastStatus: lastStatus ?? null, round: round ?? 0 };
};

/**
 * Creates the delivery of an event to an endpoint, `pending` (a conditional put: once). `created` when this
 * call wrote it; otherwise the delivery as an earlier handling of the same event left it: `pending` (its
 * message may not have been sent: it is sent again, de-duplicated by the queue) or `ended`.
 */
export const createDelivery = async (options: {
  target: DeliveryTarget;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
}): Promise<{ state: 'created' | 'pending' | 'ended'; round: number }> => {
  const { target, eventId, eventType } = options;
  const item = putItem(
    WebhookDelivery,
    deliveryKey(target.companyId, eventId, target.endpointId),
    {
      eventId,
      endpointId: target.endpointId,
      resourceId: target.resourceId,
      eventType,
      status: 'pending',
      attempts: 0,
    },
    {
      extra: {
        ttl: eventExpiry(options.eventCreatedAt),
        ...deliveryLogIndexKey(target.companyId, target.endpointId, eventId),
      },
      condition: { expression: 'attribute_not_exists(pk)' },
    },
  );
  try {
    await ddb.send(new PutCommand(item.Put as PutCommandInput));
    return { state: 'created', round: 0 };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
  const found = await getDelivery(target.companyId, eventId, target.endpointId);
  return { state: found?.status === 'pending' ? 'pending' : 'ended', round: found?.round ?? 0 };
};

/** Records one failed attempt that will be retried at `nextAttemptAt` (conditional on `pending`). */
export const recordRetry = async (options: {
  companyId: string;
  endpointId: string;
  eventId: string;
  attempts: number;
  lastStatus: number | string;
  durationMs: number;
  now: Date;
  nextAttemptAt: Date;
}): Promise<void> => {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: deliveryKey(options.companyId, options.eventId, options.endpointId),
      ...WebhookDelivery.update(
        {
          set: {
            attempts: options.attempts,
            lastStatus: options.lastStatus,
            lastAttemptAt: options.now.toISOString(),
            lastDurationMs: options.durationMs,
            nextAttemptAt: options.nextAttemptAt.toISOString(),
            firstAttemptAt: ifAbsent(options.now.toISOString()),
          },
        },
        {
          expression: '#status = :pending',
          names: { '#status': 'status' },
          values: { ':pending': 'pending' },
        },
      ),
    }),
  );
};

/**
 * Ends a delivery (`delivered` or `failed`): one update conditional on `pending`, so a delivery is ended
 * once; a delivery already ended changes nothing.
 */
export const finishDelivery = async (options: {
  companyId: string;
  endpointId: string;
  eventId: string;
  status: 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | string;
  /** How long the last answer took; absent when this step sent nothing. */
  durationMs?: number;
  now: Date;
}): Promise<void> => {
  const { now } = options;
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(options.companyId, options.eventId, options.endpointId),
        ...WebhookDelivery.update(
          {
            set: {
              status: options.status,
              attempts: options.attempts,
              lastStatus: options.lastStatus,
              lastAttemptAt: now.toISOString(),
              lastDurationMs: options.durationMs,
              finishedAt: now.toISOString(),
              firstAttemptAt: ifAbsent(now.toISOString()),
            },
            remove: ['nextAttemptAt'],
          },
          { expression: '#status = :pending', values: { ':pending': 'pending' } },
        ),
      }),
    );
  } catch (error) {
    // Ended by an earlier handling of the same message.
    if (!isConditionalCheckFailed(error)) throw error;
  }
};

export const getDelivery = async (
  companyId: string,
  eventId: string,
  endpointId: string,
): Promise<DeliveryRecord | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: deliveryKey(companyId, eventId, endpointId),
      ConsistentRead: true,
    }),
  );
  return Item ? toDelivery(Item) : undefined;
};

/** The deliveries of one event (one per endpoint it was sent to). */
export const listDeliveries = async (companyId: string, eventId: string): Promise<DeliveryRecord[]> => {
  const { Items } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :dl)',
      ExpressionAttributeValues: { ':pk': eventPartition(companyId), ':dl': sortKeys.deliveriesOf(eventId) },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map(toDelivery);
};
