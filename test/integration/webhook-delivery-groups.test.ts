import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant } from './support';
import { eventually, startReceiver } from './webhook-receiver';

/**
 * Deliveries ordered by the `webhook-delivery` FIFO queue's message groups (one per endpoint and resource):
 * one delivery of a group in flight, in the order sent, the next waiting behind a delivery being retried;
 * SQS delivers a message at least once and a send may be repeated, so a repeat is de-duplicated by the
 * queue and a late copy finds its delivery ended and sends nothing. Some messages are sent here, in the
 * test's process, to the stack's queue, as the dispatcher and the redelivery route send them.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const idsOf = (path: string) => receiver.of(path).map((r) => r.headers['webhook-id']);

/** A tenant with an endpoint at `path` subscribed to every event, created before `count` events are raised. */
const subscribed = async (path: string) => {
  const t = await createTenant({ plan: 'starter' });
  const headers = { 'x-api-key': t.apiKey };
  const created = await call('POST', '/v1/webhooks', {
    headers,
    body: { url: `${receiver.base}${path}`, events: ['*'] },
  });
  expect(created.status).toBe(201);
  const endpointId = (created.json.endpoint as { id: string }).id;
  return { headers, companyId: t.companyId, endpointId };
};

/** Raises a `transcode.done` event of `resourceId` (the dispatcher sends its deliveries). */
const raise = async (companyId: string, resourceId: string) => {
  const { putEvent } = await import('../../functions/shared/data/events');
  const event = await putEvent({
    companyId,
    type: 'transcode.done',
    resourceId,
    data: { id: resourceId },
    now: new Date(),
  });
  return event.id;
};

/**
 * An endpoint created after the events of `resourceId` were raised: the dispatcher sends them nowhere (an
 * endpoint receives only events raised after its creation), so the test creates and sends their deliveries.
 */
const quietTarget = async (path: string, resourceId: string, count = 1) => {
  const t = await createTenant({ plan: 'starter' });
  const headers = { 'x-api-key': t.apiKey };
  const eventIds: string[] = [];
  for (let i = 0; i < count; i++) eventIds.push(await raise(t.companyId, resourceId));
  const created = await call('POST', '/v1/webhooks', {
    headers,
    body: { url: `${receiver.base}${path}`, events: ['*'] },
  });
  expect(created.status).toBe(201);
  const endpointId = (created.json.endpoint as { id: string }).id;
  return { headers, target: { companyId: t.companyId, endpointId, resourceId }, eventIds };
};

type Target = Awaited<ReturnType<typeof quietTarget>>['target'];

/** The delivery created as the dispatcher creates it (no message sent). */
const created = async (target: Target, eventId: string) => {
  const { createDelivery } = await import('../../functions/shared/data/webhook-deliveries');
  return createDelivery({ target, eventId, eventType: 'transcode.done', eventCreatedAt: new Date() });
};

const send = async (target: Target, eventId: string, round = 0) => {
  const { sendDelivery } = await import('../../functions/shared/domain/events/delivery-queue');
  await sendDelivery({ ...target, eventId, round });
};

const deliveryOf = async (target: Target, eventId: string) => {
  const { getDelivery } = await import('../../functions/shared/data/webhook-deliveries');
  return getDelivery(target.companyId, eventId, target.endpointId);
};

/** Let the queue hand out anything still queued. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

describe('webhook deliveries in message groups', () => {
  it("holds a resource's next event behind a delivery being retried, while other resources go on", async () => {
    const sub = await subscribed('/held');
    // The receiver's answers are per path: the first event's first two attempts fail.
    receiver.answer('/held', [503, 503]);
    const first = await raise(sub.companyId, 'tc_held');
    await eventually(
      () => receiver.of('/held'),
      (r) => r.length > 0,
    );
    // The first is waiting for its retry: the resource's next event queues behind it.
    const second = await raise(sub.companyId, 'tc_held');
    await eventually(
      () => receiver.of('/held'),
      (r) => r.length > 1,
    );
    // Waiting for its second retry, the first holds its resource only: another resource's event goes on.
    const other = await raise(sub.companyId, 'tc_other');
    const got = await eventually(
      () => idsOf('/held'),
      (ids) => ids.length >= 5,
      30_000,
    );
    expect(got.filter((id) => id !== other)).toEqual([first, first, first, second]);
    expect(got.filter((id) => id === other)).toHaveLength(1);
    expect(got.indexOf(other)).toBeLessThan(got.lastIndexOf(first));
    const detail = await call('GET', `/v1/events/${first}`, { headers: sub.headers });
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 3, lastStatus: '200' }),
    ]);
  }, 60_000);

  it('creates a delivery once and sends it once when its record is handled twice and its message repeated', async () => {
    const { headers, target, eventIds } = await quietTarget('/twice', 'tc_twice');
    const eventId = eventIds[0] as string;
    expect(await created(target, eventId)).toEqual({ state: 'created', round: 0 });
    // Handled again before its message: found pending, so its message is sent (here twice, de-duplicated).
    expect(await created(target, eventId)).toEqual({ state: 'pending', round: 0 });
    await send(target, eventId);
    await send(target, eventId);
    await eventually(
      () => deliveryOf(target, eventId),
      (d) => d?.status === 'delivered',
    );
    await settle();
    expect(idsOf('/twice')).toEqual([eventId]);
    // Handled again once ended: nothing to send.
    expect(await created(target, eventId)).toEqual({ state: 'ended', round: 0 });
    const detail = await call('GET', `/v1/events/${eventId}`, { headers });
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 1 }),
    ]);
  });

  it('sends nothing for a late copy of a message whose delivery ended', async () => {
    const { target, eventIds } = await quietTarget('/late', 'tc_late');
    const eventId = eventIds[0] as string;
    await created(target, eventId);
    await send(target, eventId);
    await eventually(
      () => deliveryOf(target, eventId),
      (d) => d?.status === 'delivered',
    );
    const { attemptDelivery } = await import('../../functions/shared/domain/events/delivery');
    expect(await attemptDelivery({ ...target, eventId })).toEqual({ outcome: 'skipped' });
    expect(idsOf('/late')).toEqual([eventId]);
  });

  it('sends a redelivery behind the messages its group holds, and once when the request is asked again', async () => {
    const { headers, target, eventIds } = await quietTarget('/redeliver', 'tc_redeliver', 2);
    const [first, second] = eventIds as [string, string];
    await created(target, first);
    await send(target, first);
    await eventually(
      () => deliveryOf(target, first),
      (d) => d?.status === 'delivered',
    );
    // The second waits (slowly answered) while the first is redelivered: the redelivery goes after it.
    receiver.delay('/redeliver', 500);
    await created(target, second);
    await send(target, second);
    const { requeueDelivery } = await import('../../functions/shared/data/webhook-delivery-log');
    // A request that wrote the redelivery and stopped before its message; the client asks again.
    expect(
      await requeueDelivery({
        target,
        eventId: first,
        eventType: 'transcode.done',
        eventCreatedAt: new Date(),
      }),
    ).toEqual({ requeued: true, round: 1 });
    const again = await call('POST', `/v1/events/${first}/redeliver`, {
      headers,
      body: { endpointId: target.endpointId },
    });
    expect(again.status).toBe(202);
    await eventually(
      () => deliveryOf(target, first),
      (d) => d?.status === 'delivered',
    );
    await settle();
    expect(idsOf('/redeliver')).toEqual([first, second, first]);
    expect(await deliveryOf(target, first)).toMatchObject({ round: 1, attempts: 1 });
  });
});
