import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../../functions/shared/data/events';
import { call, createTenant } from './support';
import { eventually, startReceiver } from './webhook-receiver';

/**
 * The dispatcher is idempotent: the same stream record handled again (a retried batch, a restarted poller)
 * creates no second delivery and sends nothing twice.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('event dispatcher', () => {
  it('handles a stream record twice without a second delivery', async () => {
    const t = await createTenant({ plan: 'starter' });
    const headers = { 'x-api-key': t.apiKey };
    const created = await call('POST', '/v1/webhooks', {
      headers,
      body: { url: `${receiver.base}/twice`, events: ['transcode.done'] },
    });
    expect(created.status).toBe(201);
    const { putEvent, eventKey } = await import('../../functions/shared/data/events');
    const { createChangeDispatcher } = await import('../../functions/shared/domain/events/dispatch');
    const event = await putEvent({
      companyId: t.companyId,
      type: 'transcode.done',
      resourceId: 'tc_twice',
      data: { id: 'tc_twice' },
      now: new Date(),
    });
    // The stack's own poller handles the record; the same record handled again, twice, here.
    const record = {
      eventName: 'INSERT' as const,
      newImage: { ...eventKey(t.companyId, event.id), entity: 'event', ...event },
    };
    await createChangeDispatcher()(record);
    const batch = createChangeDispatcher();
    await Promise.all([batch(record), batch(record)]);
    const got = await eventually(
      () => receiver.of('/twice'),
      (r) => r.length > 0,
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.of('/twice')).toHaveLength(1);
    expect(got[0]?.headers['webhook-id']).toBe(event.id);
    const detail = await call('GET', `/v1/events/${event.id}`, { headers });
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 1 }),
    ]);
  });

  it('skips a record it cannot read, and the good records around it are delivered', async () => {
    const t = await createTenant({ plan: 'starter' });
    const headers = { 'x-api-key': t.apiKey };
    const created = await call('POST', '/v1/webhooks', {
      headers,
      body: { url: `${receiver.base}/poisoned`, events: ['transcode.done'] },
    });
    expect(created.status).toBe(201);
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { marshall } = await import('@aws-sdk/util-dynamodb');
    const { ddb } = await import('../../functions/shared/data/client');
    const { eventItem, putEvent } = await import('../../functions/shared/data/events');
    const { handler } = await import('../../functions/workers/event-dispatcher/index');
    const input = (resourceId: string): EventInput => ({
      companyId: t.companyId,
      type: 'transcode.done',
      resourceId,
      data: { id: resourceId },
      now: new Date(),
    });
    // A malformed event item in the table (its data is not JSON), between two good events: the stack's own
    // stream poller meets it in a batch.
    const before = await putEvent(input('tc_before'));
    const { Put } = eventItem(input('tc_poison'));
    const poisoned = { ...(Put.Item as Record<string, unknown>), data: 'not JSON {' };
    await ddb.send(new PutCommand({ TableName: Put.TableName, Item: poisoned }));
    const after = await putEvent(input('tc_after'));
    const got = await eventually(
      () => receiver.of('/poisoned'),
      (r) => r.length >= 2,
    );
    expect(got.map((r) => r.json.data.id).sort()).toEqual(['tc_after', 'tc_before']);

    // The same three records handed to the dispatcher in one batch: nothing to handle again.
    const { eventKey } = await import('../../functions/shared/data/events');
    const record = (sequence: string, newImage: Record<string, unknown>) => ({
      eventName: 'INSERT' as const,
      dynamodb: {
        SequenceNumber: sequence,
        Keys: marshall({ pk: newImage.pk, sk: newImage.sk }),
        NewImage: marshall(newImage, { removeUndefinedValues: true }),
      },
    });
    const stored = (event: typeof before) => ({
      ...eventKey(t.companyId, event.id),
      entity: 'event',
      ...event,
      data: JSON.stringify(event.data),
    });
    const answer = await handler(
      {
        Records: [record('100', stored(before)), record('101', poisoned), record('102', stored(after))],
      } as never,
      {} as never,
    );
    expect(answer).toEqual({ batchItemFailures: [] });
  });

  it('ends the deliveries of a deleted endpoint as failed', async () => {
    const t = await createTenant({ plan: 'starter' });
    const headers = { 'x-api-key': t.apiKey };
    receiver.answer('/deleted', [503, 503, 503, 503]);
    const created = await call('POST', '/v1/webhooks', {
      headers,
      body: { url: `${receiver.base}/deleted`, events: ['*'] },
    });
    const id = (created.json.endpoint as { id: string }).id;
    const ping = await call('POST', `/v1/webhooks/${id}/test`, { headers });
    const eventId = (ping.json.event as { id: string }).id;
    await eventually(
      () => receiver.of('/deleted'),
      (r) => r.length > 0,
    );
    expect((await call('DELETE', `/v1/webhooks/${id}`, { headers })).status).toBe(200);
    const detail = await eventually(
      () => call('GET', `/v1/events/${eventId}`, { headers }),
      (r) => (r.json.event as { deliveries: { status: string }[] }).deliveries[0]?.status === 'failed',
    );
    expect((detail.json.event as { deliveries: unknown[] }).deliveries[0]).toMatchObject({
      status: 'failed',
      lastStatus: 'endpoint_deleted',
    });
  });
});
