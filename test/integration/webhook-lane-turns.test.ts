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

/** A delivery queued in its lane with no message sent: the endpoint is created after the event. */
const queuedDelivery = async (path: string, resourceId: string) => {
  const t = await createTenant({ plan: 'starter' });
  const headers = { 'x-api-key': t.apiKey };
  const { putEvent } = await import('../../functions/shared/data/events');
  const event = await putEvent({
    companyId: t.companyId,
    type: 'transcode.done',
    resourceId,
    data: { id: resourceId },
    now: new Date(),
  });
  // An endpoint receives only the events raised after its creation: the dispatcher queues nothing for it.
  const created = await call('POST', '/v1/webhooks', {
    headers,
    body: { url: `${receiver.base}${path}`, events: ['*'] },
  });
  expect(created.status).toBe(201);
  const endpointId = (created.json.endpoint as { id: string }).id;
  const lane = { companyId: t.companyId, endpointId, resourceId };
  const { enqueueDelivery } = await import('../../functions/shared/data/webhook-deliveries');
  expect(
    await enqueueDelivery({
      lane,
      eventId: event.id,
      eventType: event.type,
      eventCreatedAt: new Date(event.createdAt),
    }),
  ).toBe(true);
  return { headers, lane, eventId: event.id };
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
    ).toBe(true);
    const hop = { ...lane, owner: 't-waiting', dueAt: new Date(now.getTime() + 3_600_000).toISOString() };
    expect(await runLane(hop)).toBe('waiting');
    // The turn moved to the next hop: this message, again, no longer holds the lane, and nobody may take it.
    expect(await runLane(hop)).toBe('not_owner');
    expect(await runLane({ ...hop, dueAt: undefined })).toBe('not_owner');
    expect(await takeLane(lane, { from: 't-waiting', to: 't-other' }, now, new Date())).toBe(false);
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
    const { deliveryKey, nextInLane } = await import('../../functions/shared/data/webhook-deliveries');
    const { ddb, tableName } = await import('../../functions/shared/data/client');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    // The owner sent it and recorded the end, then stopped: the entry is still in the lane.
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(lane.companyId, eventId, lane.endpointId),
        UpdateExpression: 'SET #status = :delivered, attempts = :one, lastStatus = :ok',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':delivered': 'delivered', ':one': 1, ':ok': 200 },
      }),
    );
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
