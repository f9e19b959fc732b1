import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant } from './support';
import { eventually, startReceiver } from './webhook-receiver';

/**
 * Lanes are driven by queue messages, each one turn of its lane: SQS delivers a message at least once, so a
 * second copy of a message must find its turn passed and send nothing; a retry's wait longer than a queue
 * hop (15 minutes) is sent on, and hands the lane to the next hop. The messages are handled here, in the
 * test's process, against the stack's table and queue, as the delivery worker handles them.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/**
 * Events of one resource, raised before their endpoint was created: an endpoint receives only the events
 * raised after its creation, so the dispatcher sends them nowhere and the test queues them itself.
 */
const idleLane = async (path: string, resourceId: string, count = 1) => {
  const t = await createTenant({ plan: 'starter' });
  const headers = { 'x-api-key': t.apiKey };
  const { putEvent } = await import('../../functions/shared/data/events');
  const eventIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = await putEvent({
      companyId: t.companyId,
      type: 'transcode.done',
      resourceId,
      data: { id: resourceId },
      now: new Date(),
    });
    eventIds.push(event.id);
  }
  const created = await call('POST', '/v1/webhooks', {
    headers,
    body: { url: `${receiver.base}${path}`, events: ['*'] },
  });
  expect(created.status).toBe(201);
  const endpointId = (created.json.endpoint as { id: string }).id;
  return { headers, lane: { companyId: t.companyId, endpointId, resourceId }, eventIds };
};

/** A delivery queued in its lane (an entry) with no message sent. */
const queuedDelivery = async (path: string, resourceId: string) => {
  const { headers, lane, eventIds } = await idleLane(path, resourceId);
  const eventId = eventIds[0] as string;
  const { enqueueDelivery } = await import('../../functions/shared/data/webhook-deliveries');
  expect(
    await enqueueDelivery({ lane, eventId, eventType: 'transcode.done', eventCreatedAt: new Date() }),
  ).toBe(true);
  return { headers, lane, eventId };
};

type Lane = Awaited<ReturnType<typeof idleLane>>['lane'];

/**
 * A delivery queued as the dispatcher queues it: the lane taken for it when idle (the fast path), else an
 * entry. `owner` is the token of the message the dispatcher sends next.
 */
const dispatched = async (lane: Lane, eventId: string) => {
  const { enqueueDelivery } = await import('../../functions/shared/data/webhook-deliveries');
  const { laneStartToken } = await import('../../functions/shared/domain/events/lanes');
  const owner = laneStartToken(lane, eventId);
  const queued = await enqueueDelivery({
    lane,
    eventId,
    eventType: 'transcode.done',
    eventCreatedAt: new Date(),
    takeIdle: { owner, leaseUntil: new Date(Date.now() + 300_000) },
  });
  return { owner, queued };
};

/** The lane's head item, read consistently. */
const laneItem = async (lane: Lane) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { sortKeys } = await import('../../functions/shared/data/keys');
  const { lanePartition } = await import('../../functions/shared/data/webhook-deliveries');
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: { pk: lanePartition(lane), sk: sortKeys.webhookLane },
      ConsistentRead: true,
    }),
  );
  return Item ?? {};
};

/** An owner sent the delivery and recorded its end, then stopped (before it left the lane). */
const endedByStoppedOwner = async (lane: Lane, eventId: string) => {
  const { deliveryKey } = await import('../../functions/shared/data/webhook-deliveries');
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: deliveryKey(lane.companyId, eventId, lane.endpointId),
      UpdateExpression: 'SET #status = :delivered, attempts = :one, lastStatus = :ok',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':delivered': 'delivered', ':one': 1, ':ok': 200 },
    }),
  );
};

const idsOf = (path: string) => receiver.of(path).map((r) => r.headers['webhook-id']);

/** Released: nobody holds the lane, nothing is carried or counted, and it left the unfinished partition. */
const expectReleased = async (lane: Lane) => {
  const item = await laneItem(lane);
  expect(item).toMatchObject({ pending: 0 });
  for (const gone of ['owner', 'leaseUntil', 'fast', 'workpk', 'worksk']) expect(item[gone]).toBeUndefined();
};

describe('webhook lane messages', () => {
  it('sends a delivery once when two copies of its message arrive together, and a late copy sends nothing', async () => {
    const { headers, lane, eventId } = await queuedDelivery('/copies', 'tc_copies');
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { laneStartToken } = await import('../../functions/shared/domain/events/lanes');
    const message = { ...lane, owner: laneStartToken(lane, eventId) };
    const outcomes = await Promise.all([runLane(message), runLane(message)]);
    expect(outcomes.sort()).toEqual(['not_owner', 'released']);
    expect(await runLane(message)).toBe('not_owner');
    await eventually(
      () => receiver.of('/copies'),
      (r) => r.length > 0,
    );
    expect(receiver.of('/copies').map((r) => r.headers['webhook-id'])).toEqual([eventId]);
    const detail = await call('GET', `/v1/events/${eventId}`, { headers });
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ endpointId: lane.endpointId, status: 'delivered', attempts: 1 }),
    ]);
  });

  it('sends a wait longer than a queue hop on, handing the lane to the next hop; a copy of the hop sends nothing', async () => {
    const { lane } = await queuedDelivery('/hops', 'tc_hops');
    const { takeLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const now = new Date();
    // The lane's owner handed its turn to the message `t-waiting`, due in an hour.
    expect(
      await takeLane(lane, { from: 'none', to: 't-waiting' }, new Date(now.getTime() + 60_000), now),
    ).toEqual({});
    const hop = { ...lane, owner: 't-waiting', dueAt: new Date(now.getTime() + 3_600_000).toISOString() };
    expect(await runLane(hop)).toBe('waiting');
    // The turn moved to the next hop: this message, again, no longer holds the lane, and nobody may take it.
    expect(await runLane(hop)).toBe('not_owner');
    expect(await runLane({ ...hop, dueAt: undefined })).toBe('not_owner');
    expect(await takeLane(lane, { from: 't-waiting', to: 't-other' }, now, new Date())).toBeUndefined();
    expect(receiver.of('/hops')).toEqual([]);
  });

  it('queues a delivery created by a handling that stopped before queuing it, once', async () => {
    const { lane, eventId } = await queuedDelivery('/stopped-enqueue', 'tc_stopped_enqueue');
    const { enqueueDelivery, entryKey } = await import('../../functions/shared/data/webhook-deliveries');
    const { ddb, tableName } = await import('../../functions/shared/data/client');
    const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { sortKeys } = await import('../../functions/shared/data/keys');
    // The handling stopped after the delivery's put: no entry, the lane's count not raised.
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: tableName(), Key: entryKey(lane, eventId) } },
          {
            Update: {
              TableName: tableName(),
              Key: { pk: entryKey(lane, eventId).pk, sk: sortKeys.webhookLane },
              UpdateExpression: 'ADD pending :minus',
              ExpressionAttributeValues: { ':minus': -1 },
            },
          },
        ],
      }),
    );
    const again = { lane, eventId, eventType: 'transcode.done', eventCreatedAt: new Date() };
    expect(await enqueueDelivery(again)).toBe(true);
    // Handled once more: already queued, nothing written.
    expect(await enqueueDelivery(again)).toBe(false);
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { laneStartToken } = await import('../../functions/shared/domain/events/lanes');
    expect(await runLane({ ...lane, owner: laneStartToken(lane, eventId) })).toBe('released');
    expect(receiver.of('/stopped-enqueue').map((r) => r.headers['webhook-id'])).toEqual([eventId]);
    // Handled again after it was delivered: the delivery is not pending, nothing is queued.
    expect(await enqueueDelivery(again)).toBe(false);
  });

  it('takes a delivery ended by an owner that stopped before leaving the lane out of it, without sending it again', async () => {
    const { headers, lane, eventId } = await queuedDelivery('/stopped-finish', 'tc_stopped_finish');
    const { nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    await endedByStoppedOwner(lane, eventId);
    expect(await nextInLane(lane)).toBe(eventId);
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { laneStartToken } = await import('../../functions/shared/domain/events/lanes');
    expect(await runLane({ ...lane, owner: laneStartToken(lane, eventId) })).toBe('released');
    expect(await nextInLane(lane)).toBeUndefined();
    expect(receiver.of('/stopped-finish')).toEqual([]);
    const detail = await call('GET', `/v1/events/${eventId}`, { headers });
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({
        endpointId: lane.endpointId,
        status: 'delivered',
        attempts: 1,
        lastStatus: '200',
      }),
    ]);
  });
});

/**
 * The idle-lane fast path: a delivery that finds its lane idle takes it for itself (no entry, no count) with
 * the token of the message the dispatcher sends next; the owner sends it first and releases the lane after
 * it, or passes on to the entries queued meanwhile. Each stop between two writes is one case here.
 */
describe('webhook lanes taken on the idle-lane fast path', () => {
  it('takes an idle lane with no entry, sends once and releases it; the record handled again writes nothing', async () => {
    const { headers, lane, eventIds } = await idleLane('/fast', 'tc_fast');
    const eventId = eventIds[0] as string;
    const { nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { owner, queued } = await dispatched(lane, eventId);
    expect(queued).toBe(true);
    expect(await laneItem(lane)).toMatchObject({
      owner,
      fast: eventId,
      pending: 0,
      workpk: expect.any(String),
    });
    expect(await nextInLane(lane)).toBeUndefined();
    // The handling stopped before its message and the record is handled again: the lane carries it already.
    expect((await dispatched(lane, eventId)).queued).toBe(false);
    expect(await nextInLane(lane)).toBeUndefined();
    expect(await laneItem(lane)).toMatchObject({ owner, fast: eventId, pending: 0 });
    // Two copies of the message: one sends, the other finds its turn passed.
    const message = { ...lane, owner };
    expect((await Promise.all([runLane(message), runLane(message)])).sort()).toEqual([
      'not_owner',
      'released',
    ]);
    expect(idsOf('/fast')).toEqual([eventId]);
    await expectReleased(lane);
    // Handled again after it was delivered: nothing is queued, nothing taken.
    expect((await dispatched(lane, eventId)).queued).toBe(false);
    expect(await laneItem(lane)).not.toHaveProperty('owner');
    const detail = await call('GET', `/v1/events/${eventId}`, { headers });
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ endpointId: lane.endpointId, status: 'delivered', attempts: 1 }),
    ]);
  });

  it('queues an event that comes while the fast delivery is in flight behind it, and sends it after', async () => {
    const { lane, eventIds } = await idleLane('/fast-behind', 'tc_fast_behind', 2);
    const [first, second] = eventIds as [string, string];
    const { nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { laneStartToken } = await import('../../functions/shared/domain/events/lanes');
    const { owner } = await dispatched(lane, first);
    receiver.delay('/fast-behind', 500);
    const turn = runLane({ ...lane, owner });
    await eventually(
      () => receiver.arrivals('/fast-behind'),
      (a) => a.length > 0,
    );
    // The first is being sent: the second is an entry behind it, and its own message finds the lane held.
    expect((await dispatched(lane, second)).queued).toBe(true);
    expect(await nextInLane(lane)).toBe(second);
    expect(await laneItem(lane)).toMatchObject({ pending: 1, fast: first });
    expect(await runLane({ ...lane, owner: laneStartToken(lane, second) })).toBe('not_owner');
    // The first ends while the entry waits: the lane is not released but goes on with the entry.
    expect(await turn).toBe('released');
    expect(idsOf('/fast-behind')).toEqual([first, second]);
    expect(receiver.arrivals('/fast-behind')).toHaveLength(2);
    await expectReleased(lane);
    expect(await nextInLane(lane)).toBeUndefined();
  });

  it('takes a fast delivery ended by an owner that stopped before releasing the lane, without sending it again', async () => {
    const { headers, lane, eventIds } = await idleLane('/fast-stopped', 'tc_fast_stopped');
    const eventId = eventIds[0] as string;
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { owner } = await dispatched(lane, eventId);
    await endedByStoppedOwner(lane, eventId);
    expect(await runLane({ ...lane, owner })).toBe('released');
    expect(receiver.arrivals('/fast-stopped')).toEqual([]);
    await expectReleased(lane);
    const detail = await call('GET', `/v1/events/${eventId}`, { headers });
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 1, lastStatus: '200' }),
    ]);
  });

  it('resumes a lane taken on the fast path whose messages a restart lost (start-up recovery)', async () => {
    const { lane, eventIds } = await idleLane('/fast-lost', 'tc_fast_lost');
    const eventId = eventIds[0] as string;
    const { listUnfinishedLanes, takeLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { resumeLane } = await import('../../functions/shared/domain/events/lanes');
    const { owner } = await dispatched(lane, eventId);
    // The worker took the lane (it learns the delivery it carries), then the stack stopped: no message left.
    const now = new Date();
    expect(
      await takeLane(lane, { from: owner, to: 't-gone' }, new Date(now.getTime() + 300_000), now),
    ).toEqual({
      fast: eventId,
    });
    const found = (await listUnfinishedLanes()).find(
      (l) => l.endpointId === lane.endpointId && l.resourceId === lane.resourceId,
    );
    expect(found).toMatchObject({ owner: 't-gone', pending: 0, fast: eventId });
    // What the start-up does with it: taken from the gone owner and woken by a message the stack handles.
    expect(await resumeLane(found as NonNullable<typeof found>, new Date())).toBe(true);
    await eventually(
      () => receiver.of('/fast-lost'),
      (r) => r.length > 0,
    );
    expect(idsOf('/fast-lost')).toEqual([eventId]);
    await eventually(laneItem.bind(null, lane), (item) => item.owner === undefined);
    await expectReleased(lane);
  });

  it('holds the lane through the fast delivery’s retries: the next event goes after it', async () => {
    const { lane, eventIds } = await idleLane('/fast-retry', 'tc_fast_retry', 2);
    const [first, second] = eventIds as [string, string];
    const { nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { startLane } = await import('../../functions/shared/domain/events/lanes');
    receiver.answer('/fast-retry', [503, 503]);
    await dispatched(lane, first);
    await startLane(lane, first);
    await eventually(
      () => receiver.of('/fast-retry'),
      (r) => r.length > 0,
    );
    // Waiting for its retry, the first still holds the lane: the second is an entry behind it.
    expect((await dispatched(lane, second)).queued).toBe(true);
    expect(await nextInLane(lane)).toBe(second);
    await startLane(lane, second);
    await eventually(
      () => receiver.of('/fast-retry'),
      (r) => r.length >= 4,
    );
    expect(idsOf('/fast-retry')).toEqual([first, first, first, second]);
    await eventually(laneItem.bind(null, lane), (item) => item.owner === undefined);
    await expectReleased(lane);
  });
});

/**
 * A lane freed from a gone owner (the local stack's start-up) keeps its `fast` delivery for the message that
 * resumes it, and a redelivery takes an idle lane the way the dispatcher does (one transaction: the delivery
 * made pending and the lane taken), or queues an entry behind what the lane holds.
 */
describe('webhook lanes: freed lanes and redeliveries', () => {
  /** A delivered event of the lane, ended and released. */
  const deliveredOnce = async (lane: Lane, eventId: string) => {
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { owner } = await dispatched(lane, eventId);
    expect(await runLane({ ...lane, owner })).toBe('released');
  };

  /** The redelivery's data write as the API makes it: the token of the message it sends next, no lease. */
  const redelivered = async (lane: Lane, eventId: string) => {
    const { requeueDelivery } = await import('../../functions/shared/data/webhook-delivery-log');
    const { laneStartToken } = await import('../../functions/shared/domain/events/lanes');
    const owner = `${laneStartToken(lane, eventId)}-rd`;
    const queued = await requeueDelivery({
      lane,
      eventId,
      eventType: 'transcode.done',
      eventCreatedAt: new Date(),
      takeIdle: { owner, leaseUntil: new Date() },
    });
    return { owner, queued };
  };

  it('does not take a freed lane that still carries a fast delivery: the next event queues behind it', async () => {
    const { lane, eventIds } = await idleLane('/freed', 'tc_freed', 2);
    const [first, second] = eventIds as [string, string];
    const { freeLane, listUnfinishedLanes, nextInLane, takeLane } = await import(
      '../../functions/shared/data/webhook-deliveries'
    );
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { owner } = await dispatched(lane, first);
    const now = new Date();
    await takeLane(lane, { from: owner, to: 't-gone' }, new Date(now.getTime() + 300_000), now);
    const found = (await listUnfinishedLanes()).find(
      (l) => l.endpointId === lane.endpointId && l.resourceId === lane.resourceId,
    );
    // The start-up frees the lane (its `fast` delivery stays), and the next event comes before its message.
    expect(await freeLane(found as NonNullable<typeof found>)).toBe(true);
    expect((await dispatched(lane, second)).queued).toBe(true);
    expect(await nextInLane(lane)).toBe(second);
    expect(await laneItem(lane)).toMatchObject({ fast: first, pending: 1 });
    expect(await runLane({ ...lane, owner: 'resumed' })).toBe('released');
    expect(idsOf('/freed')).toEqual([first, second]);
    await expectReleased(lane);
  });

  it('takes an idle lane for a redelivery with no entry, and sends it once', async () => {
    const { headers, lane, eventIds } = await idleLane('/redeliver-fast', 'tc_redeliver_fast');
    const eventId = eventIds[0] as string;
    const { nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    await deliveredOnce(lane, eventId);
    const { owner, queued } = await redelivered(lane, eventId);
    expect(queued).toBe(true);
    expect(await laneItem(lane)).toMatchObject({
      owner,
      fast: eventId,
      pending: 0,
      workpk: expect.any(String),
    });
    expect(await nextInLane(lane)).toBeUndefined();
    // Asked again while it is pending: nothing written.
    expect((await redelivered(lane, eventId)).queued).toBe(false);
    expect(await laneItem(lane)).toMatchObject({ owner, fast: eventId, pending: 0 });
    const message = { ...lane, owner };
    expect((await Promise.all([runLane(message), runLane(message)])).sort()).toEqual([
      'not_owner',
      'released',
    ]);
    expect(idsOf('/redeliver-fast')).toEqual([eventId, eventId]);
    await expectReleased(lane);
    const detail = await call('GET', `/v1/events/${eventId}`, { headers });
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ endpointId: lane.endpointId, status: 'delivered', attempts: 1 }),
    ]);
  });

  it('queues a redelivery behind the delivery its lane carries, and sends it after', async () => {
    const { lane, eventIds } = await idleLane('/redeliver-busy', 'tc_redeliver_busy', 2);
    const [first, second] = eventIds as [string, string];
    const { nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    await deliveredOnce(lane, first);
    const { owner } = await dispatched(lane, second);
    // The lane carries the second: the first's redelivery is an entry behind it.
    expect((await redelivered(lane, first)).queued).toBe(true);
    expect(await nextInLane(lane)).toBe(first);
    expect(await laneItem(lane)).toMatchObject({ owner, fast: second, pending: 1 });
    expect(await runLane({ ...lane, owner })).toBe('released');
    expect(idsOf('/redeliver-busy')).toEqual([first, second, first]);
    await expectReleased(lane);
  });

  it('sends a redelivery whose request stopped before its message when it is asked again', async () => {
    const { headers, lane, eventIds } = await idleLane('/redeliver-stopped', 'tc_redeliver_stopped');
    const eventId = eventIds[0] as string;
    await deliveredOnce(lane, eventId);
    // The request wrote the redelivery and stopped: no message. The client asks again.
    expect((await redelivered(lane, eventId)).queued).toBe(true);
    const again = await call('POST', `/v1/events/${eventId}/redeliver`, {
      headers,
      body: { endpointId: lane.endpointId },
    });
    expect(again.status).toBe(202);
    await eventually(
      () => receiver.of('/redeliver-stopped'),
      (r) => r.length >= 2,
    );
    expect(idsOf('/redeliver-stopped')).toEqual([eventId, eventId]);
    await eventually(laneItem.bind(null, lane), (item) => item.owner === undefined);
    await expectReleased(lane);
  });

  it('lets the next event of the resource take a lane a redelivery stopped before its message took', async () => {
    const { lane, eventIds } = await idleLane('/redeliver-next', 'tc_redeliver_next', 2);
    const [first, second] = eventIds as [string, string];
    const { nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { laneStartToken } = await import('../../functions/shared/domain/events/lanes');
    await deliveredOnce(lane, first);
    // The request wrote the redelivery and stopped: no message, and nobody asks again.
    expect((await redelivered(lane, first)).queued).toBe(true);
    // The next event queues behind it, and its message takes the lane: the redelivery goes first.
    expect((await dispatched(lane, second)).queued).toBe(true);
    expect(await nextInLane(lane)).toBe(second);
    expect(await runLane({ ...lane, owner: laneStartToken(lane, second) })).toBe('released');
    expect(idsOf('/redeliver-next')).toEqual([first, first, second]);
    await expectReleased(lane);
  });

  it('sends a redelivery from the entry an owner that stopped left in the lane, once, with the count exact', async () => {
    const { lane, eventId } = await queuedDelivery('/redeliver-left', 'tc_redeliver_left');
    const { nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { runLane } = await import('../../functions/shared/domain/events/lane-run');
    const { laneStartToken } = await import('../../functions/shared/domain/events/lanes');
    // Ended by an owner that stopped before taking it out of the lane: its entry is counted still.
    await endedByStoppedOwner(lane, eventId);
    expect((await redelivered(lane, eventId)).queued).toBe(true);
    expect(await nextInLane(lane)).toBe(eventId);
    expect(await laneItem(lane)).toMatchObject({ pending: 1 });
    expect(await runLane({ ...lane, owner: laneStartToken(lane, eventId) })).toBe('released');
    expect(idsOf('/redeliver-left')).toEqual([eventId]);
    await expectReleased(lane);
  });
});
