import {
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { putItem, type TransactItem } from './entity';
import { eventExpiry, eventPartition } from './events';
import { sortKeys } from './keys';
import { INDEX_ATTRIBUTES, listSparsePartition } from './sparse-index';
import { transactUnlessFailed } from './transactions';
import { ifAbsent } from './update-expression';
import {
  deliveryLogIndexKey,
  LaneEntry,
  type LaneRef,
  lanePartition,
  UNFINISHED_LANES_PARTITION,
  unfinishedLaneIndexKey,
  WebhookDelivery,
  WebhookLane,
} from './webhook-delivery-entities';

export { type LaneRef, lanePartition, unfinishedLaneIndexKey } from './webhook-delivery-entities';

/**
 * Deliveries of events to webhook endpoints, and the lanes that order them.
 *
 * - `DL#<eventId>#<endpointId>` (in the event's partition): one per event and endpoint, written once
 *   (conditional put: a stream record handled twice creates no second delivery), with its attempts, last
 *   status and outcome (`pending` → `delivered` | `failed`). Expires with the event.
 * - A lane per endpoint and resource, partition `CO#<companyId>#WHLANE#<endpointId>#<resourceId>`: `LANE`
 *   (the number of `pending` deliveries, and the owner token holding the lane with its lease: the queue
 *   message whose turn it is, `domain/events/lane-run.ts`) and one `Q#<eventId>`
 *   entry per pending delivery. Entries sort by event id, i.e. by creation time. Only the lane's owner sends,
 *   oldest entry first, so at most one delivery is in flight per endpoint and resource and a consumer sees a
 *   resource's events in order.
 * - Idle-lane fast path: a delivery that finds its lane idle (no owner, nothing pending) takes the lane for
 *   itself in one conditional update (`fast` names it, the owner is its message's token), with no entry and
 *   no count: the lane's owner sends it before any entry, and releases the lane after it when nothing was
 *   queued meanwhile (`takeIdleLane`, `docs/decisions/0051-idle-lane-fast-path.md`).
 * - A lane with deliveries to send is in the sparse `work` index partition `workpk = WHLANE#UNFINISHED` from the
 *   enqueue (or fast take) until its owner releases it empty, so lanes whose message was lost are found without
 *   reading history (the local stack's start-up resumes them).
 * - Each delivery is also in its endpoint's log, `workpk = CO#<companyId>#WHDL#<endpointId>` ordered by event
 *   id, in the keys-only `work` index so that its updates write no index entry (older deliveries have it in
 *   `gsi1`; `webhook-delivery-log.ts`, which also sends a delivery again).
 */
const laneKey = (lane: LaneRef) => WebhookLane.key(lanePartition(lane));
export const entryKey = (lane: LaneRef, eventId: string) => LaneEntry.key(lanePartition(lane), eventId);
/** A delivery queued: one more pending, the lane's identity and its place in the unfinished partition. */
export const laneEnqueueItem = (lane: LaneRef) => ({
  Update: {
    TableName: tableName(),
    Key: laneKey(lane),
    ...WebhookLane.update({
      add: { pending: 1 },
      set: {
        entity: WebhookLane.name,
        companyId: lane.companyId,
        endpointId: lane.endpointId,
        resourceId: lane.resourceId,
        ...unfinishedLaneIndexKey(lane),
      },
    }),
  },
});
const laneCountItem = (lane: LaneRef, delta: number) => ({
  Update: {
    TableName: tableName(),
    Key: laneKey(lane),
    ...WebhookLane.update({ add: { pending: delta }, set: { entity: WebhookLane.name } }),
  },
});
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
}

export const toDelivery = (item: Record<string, unknown>): DeliveryRecord => {
  const { resourceId: _resourceId, attempts, lastStatus, ...delivery } = WebhookDelivery.decode(item);
  return { ...delivery, attempts: attempts ?? 0, lastStatus: lastStatus ?? null };
};

/**
 * Creates the delivery of an event to an endpoint (a conditional put: once), then queues it in its lane (its
 * entry and the lane's count in one transaction, conditional on the entry's absence: once). With `takeIdle`,
 * a lane found idle is taken for the delivery instead (`takeIdleLane`: no entry, no count), and a lane that
 * already carries it on the fast path (an earlier handling stopped before its message) is left as it is.
 * Returns false when nothing was queued: the delivery existed already and was queued, taken (or ended) by an
 * earlier handling of the same event. A handling that stopped between the two writes left a `pending`
 * delivery out of its lane: handling the event again queues it. Two writes instead of one transaction of
 * three: the delivery is written once, not twice as a transaction action, and its log index entry with it.
 */
export const enqueueDelivery = async (options: {
  lane: LaneRef;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date;
  /** The owner token of the message that will wake the lane, and its lease, for a lane found idle. */
  takeIdle?: { owner: string; leaseUntil: Date };
}): Promise<boolean> => {
  const { lane, eventId, eventType, takeIdle } = options;
  const created = await putUnlessFailed(
    putItem(
      WebhookDelivery,
      deliveryKey(lane.companyId, eventId, lane.endpointId),
      {
        eventId,
        endpointId: lane.endpointId,
        resourceId: lane.resourceId,
        eventType,
        status: 'pending',
        attempts: 0,
      },
      {
        extra: {
          ttl: eventExpiry(options.eventCreatedAt),
          ...deliveryLogIndexKey(lane.companyId, lane.endpointId, eventId),
        },
        condition: { expression: 'attribute_not_exists(pk)' },
      },
    ),
  );
  if (!created && (await getDelivery(lane.companyId, eventId, lane.endpointId))?.status !== 'pending')
    return false;
  if (takeIdle) {
    const taken = await takeIdleLane(lane, eventId, takeIdle.owner, takeIdle.leaseUntil);
    if (taken !== 'busy') return taken === 'taken';
  }
  return transactUnlessFailed(
    [
      putItem(
        LaneEntry,
        entryKey(lane, eventId),
        { eventId },
        { condition: { expression: 'attribute_not_exists(pk)' } },
      ),
      laneEnqueueItem(lane),
    ],
    0,
  );
};

/**
 * The idle-lane take (`takeIdleLane`, and a redelivery's in its transaction, `webhook-delivery-log.ts`): the
 * lane's head item set to carry the delivery of `eventId` for `owner` (the token of the message sent next)
 * until `leaseUntil`, with `fast` naming the delivery, the lane's identity and its place in the unfinished
 * partition; conditional on the lane being idle: nobody holds it, nothing is pending, and it carries no
 * `fast` delivery (a lane freed from a gone owner keeps its `fast` delivery for the message that resumes it).
 */
export const idleLaneTake = (lane: LaneRef, eventId: string, owner: string, leaseUntil: Date) => ({
  TableName: tableName(),
  Key: laneKey(lane),
  ...WebhookLane.update(
    {
      set: {
        entity: WebhookLane.name,
        companyId: lane.companyId,
        endpointId: lane.endpointId,
        resourceId: lane.resourceId,
        pending: ifAbsent(0),
        owner,
        leaseUntil: leaseUntil.toISOString(),
        fast: eventId,
        ...unfinishedLaneIndexKey(lane),
      },
    },
    {
      expression:
        'attribute_not_exists(#owner) AND attribute_not_exists(#fast) AND (attribute_not_exists(pending) OR pending <= :zero)',
      names: { '#fast': 'fast' },
      values: { ':zero': 0 },
    },
  ),
});

/**
 * The idle-lane fast path: takes a lane that is idle (`idleLaneTake`) for the delivery of `eventId`, in one
 * conditional update. `carried` when the lane already carries this delivery (a handling that stopped before
 * its message); `busy` when the lane is held, has entries or carries another delivery: the delivery must
 * queue as an entry behind them.
 */
export const takeIdleLane = async (
  lane: LaneRef,
  eventId: string,
  owner: string,
  leaseUntil: Date,
): Promise<'taken' | 'carried' | 'busy'> => {
  try {
    await ddb.send(
      new UpdateCommand({
        ...idleLaneTake(lane, eventId, owner, leaseUntil),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'taken';
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    // The lane as the failed condition found it (marshalled: the document client leaves errors as they come).
    const fast = (error as { Item?: { fast?: { S?: string } | string } }).Item?.fast;
    return (typeof fast === 'string' ? fast : fast?.S) === eventId ? 'carried' : 'busy';
  }
};

/** A conditional put: false when its condition failed (nothing written). */
const putUnlessFailed = async (item: TransactItem): Promise<boolean> => {
  try {
    await ddb.send(new PutCommand(item.Put as PutCommandInput));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

/** A lane as its new owner took it: `fast`, the delivery it carries with no entry (sent first), if any. */
export interface TakenLane {
  fast?: string;
}

/**
 * Takes the lane for the new owner `to` until `leaseUntil`, on behalf of the message that names `from`: when
 * it has deliveries to send (entries, or one taken on the fast path) and `from` holds it (the message is the
 * lane's next turn), or nobody does, or the holder's lease has ended. Undefined when another owner holds it
 * (that owner sends what this message would have), when the message's turn has passed (a copy of it was
 * handled already), or nothing is pending.
 */
export const takeLane = async (
  lane: LaneRef,
  turn: { from: string; to: string },
  leaseUntil: Date,
  now: Date,
): Promise<TakenLane | undefined> => {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: laneKey(lane),
        ...WebhookLane.update(
          { set: { owner: turn.to, leaseUntil: leaseUntil.toISOString() } },
          {
            expression:
              '(pending > :zero OR attribute_exists(#fast)) AND (attribute_not_exists(#owner) OR #owner = :from OR leaseUntil < :now)',
            names: { '#fast': 'fast' },
            values: { ':from': turn.from, ':now': now.toISOString(), ':zero': 0 },
          },
        ),
        ReturnValues: 'ALL_NEW',
      }),
    );
    const fast = Attributes?.fast;
    return typeof fast === 'string' ? { fast } : {};
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
};

/**
 * Hands the lane from its owner `from` to `to` (the message that carries the lane's next turn), leased until
 * `leaseUntil`; false when `from` no longer holds it.
 */
export const passLane = async (
  lane: LaneRef,
  turn: { from: string; to: string },
  leaseUntil: Date,
): Promise<boolean> => {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: laneKey(lane),
        ...WebhookLane.update(
          { set: { owner: turn.to, leaseUntil: leaseUntil.toISOString() } },
          { expression: '#owner = :from', values: { ':from': turn.from } },
        ),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

/**
 * Extends the owner's lease (it goes on with the lane's entries), and drops the lane's `fast` mark: the
 * delivery it named has ended. False when the lane is no longer the owner's.
 */
export const renewLane = async (lane: LaneRef, owner: string, leaseUntil: Date): Promise<boolean> => {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: laneKey(lane),
        ...WebhookLane.update(
          { set: { leaseUntil: leaseUntil.toISOString() }, remove: ['fast'] },
          { expression: '#owner = :owner', names: { '#owner': 'owner' }, values: { ':owner': owner } },
        ),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

/** The oldest pending delivery of the lane (its event id), read consistently. */
export const nextInLane = async (lane: LaneRef): Promise<string | undefined> => {
  const { Items } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :q)',
      ExpressionAttributeValues: { ':pk': lanePartition(lane), ':q': sortKeys.laneEntry('') },
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  const first = Items?.[0];
  return first ? LaneEntry.decode(first).eventId : undefined;
};

/**
 * Gives the lane up when nothing is pending any more (its `fast` delivery, if any, has ended): the lane
 * leaves the unfinished partition. False when a delivery was queued meanwhile (the owner goes on) or the
 * lane is no longer the owner's.
 */
export const releaseLane = async (lane: LaneRef, owner: string): Promise<boolean> => {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: laneKey(lane),
        ...WebhookLane.update(
          { remove: ['owner', 'leaseUntil', 'fast', ...INDEX_ATTRIBUTES] },
          { expression: '#owner = :owner AND pending <= :zero', values: { ':owner': owner, ':zero': 0 } },
        ),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

/**
 * A lane found in the unfinished partition: who held it (if anyone), how many entries wait, and the delivery
 * taken on the fast path, if any.
 */
export interface UnfinishedLane extends LaneRef {
  owner?: string;
  pending: number;
  fast?: string;
}

/** Lanes with deliveries to send, of every company (never a request path). */
export const listUnfinishedLanes = async (): Promise<UnfinishedLane[]> =>
  (await listSparsePartition(UNFINISHED_LANES_PARTITION)).map((item) => {
    const { companyId, endpointId, resourceId, pending, owner, fast } = WebhookLane.decode(item);
    return {
      companyId,
      endpointId,
      resourceId,
      pending: pending ?? 0,
      ...(owner === undefined ? {} : { owner }),
      ...(fast === undefined ? {} : { fast }),
    };
  });

/**
 * Takes the lane away from an owner that is gone (its queue message did not survive a restart), when that owner
 * (or none) still holds it: an empty lane leaves the unfinished partition, a lane with deliveries (entries,
 * or one taken on the fast path, which stays) is left free for a new owner. False when the lane moved
 * meanwhile (another owner holds it).
 */
export const freeLane = async (lane: UnfinishedLane): Promise<boolean> => {
  const empty = lane.pending <= 0 && lane.fast === undefined;
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: laneKey(lane),
        ...WebhookLane.update(
          { remove: empty ? ['owner', 'leaseUntil', ...INDEX_ATTRIBUTES] : ['owner', 'leaseUntil'] },
          {
            expression: `${lane.owner ? '#owner = :owner' : 'attribute_not_exists(#owner)'} AND ${empty ? 'pending <= :zero AND attribute_not_exists(#fast)' : '(pending > :zero OR attribute_exists(#fast))'}`,
            names: { '#fast': 'fast' },
            values: { ':zero': 0, ...(lane.owner ? { ':owner': lane.owner } : {}) },
          },
        ),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

/** Records one failed attempt that will be retried. */
export const recordRetry = async (options: {
  lane: LaneRef;
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
      Key: deliveryKey(options.lane.companyId, options.eventId, options.lane.endpointId),
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
 * Ends a delivery (`delivered` or `failed`: an update conditional on `pending`, so a delivery is ended once),
 * then takes it out of its lane (the entry's deletion, conditional on its presence, and the lane's count in
 * one transaction, so the count goes down once). A delivery already ended changes nothing; its entry, if
 * still there, goes. A stop between the two writes leaves an ended delivery in its lane: the lane's next
 * owner finds it ended and only takes it out (`attemptStep`), never sends it again. A delivery taken on the
 * fast path (`fast`) has no entry: only its end is written, and the owner's release (or `renewLane`) drops
 * the lane's `fast` mark.
 */
export const finishDelivery = async (options: {
  lane: LaneRef;
  eventId: string;
  status: 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | string;
  /** How long the last answer took; absent when this step sent nothing. */
  durationMs?: number;
  now: Date;
  /** The delivery was taken on the idle-lane fast path: no entry, not counted. */
  fast?: boolean;
}): Promise<void> => {
  const { lane, eventId, now } = options;
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(lane.companyId, eventId, lane.endpointId),
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
    // Ended by an earlier invocation of the same step: its lane entry must still go.
    if (!isConditionalCheckFailed(error)) throw error;
  }
  if (options.fast) return;
  const entry = {
    Delete: {
      TableName: tableName(),
      Key: entryKey(lane, eventId),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
  await transactUnlessFailed([entry, laneCountItem(lane, -1)], 0);
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
