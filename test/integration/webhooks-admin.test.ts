import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src/webhooks';
import { call, createTenant, expectProblem } from './support';
import { eventually, type Received, startReceiver, verifySignature } from './webhook-receiver';

/**
 * Managing webhook endpoints after their creation: changing one (`PATCH`, with `If-Match`), rotating its
 * signing secret with an overlap in which both secrets sign, its delivery log, and sending an event again.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const tenant = async () => {
  const t = await createTenant({ plan: 'starter' });
  return { ...t, headers: { 'x-api-key': t.apiKey } };
};

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: string;
  disabledReason: string | null;
  failingSince: string | null;
  updatedAt: string;
}

const register = async (headers: Record<string, string>, path: string, events: string[] = ['*']) => {
  const created = await call('POST', '/v1/webhooks', {
    headers,
    body: { url: `${receiver.base}${path}`, events, description: 'admin' },
  });
  expect(created.status).toBe(201);
  return { endpoint: created.json.endpoint as Endpoint, secret: String(created.json.secret) };
};

const ping = async (headers: Record<string, string>, endpointId: string) => {
  const res = await call('POST', `/v1/webhooks/${endpointId}/test`, { headers });
  expect(res.status).toBe(202);
  return (res.json.event as { id: string }).id;
};

const receivedOf = (path: string, count: number) =>
  eventually(
    () => receiver.of(path),
    (r) => r.length >= count,
  );

type Delivery = { endpointId: string; status: string; attempts: number; lastStatus: string | null };

const deliveriesOf = async (headers: Record<string, string>, eventId: string) =>
  ((await call('GET', `/v1/events/${eventId}`, { headers })).json.event as { deliveries: Delivery[] })
    .deliveries;

const settled = (headers: Record<string, string>, eventId: string, count: number) =>
  eventually(
    () => deliveriesOf(headers, eventId),
    (d) => d.length === count && d.every((x) => x.status !== 'pending'),
  );

/** The request with only one of its signatures in `webhook-signature`. */
const withSignature = (r: Received, signature: string): Received => ({
  ...r,
  headers: { ...r.headers, 'webhook-signature': signature },
});

describe('PATCH /v1/webhooks/{id}', () => {
  it('replaces the members given, with JSON merge: null removes the description', async () => {
    const t = await tenant();
    const { endpoint } = await register(t.headers, '/patch');
    const res = await call('PATCH', `/v1/webhooks/${endpoint.id}`, {
      headers: t.headers,
      body: { events: ['transcode.done', 'transcode.done'], description: null },
    });
    expect(res.status).toBe(200);
    expect(res.json.endpoint).toMatchObject({
      id: endpoint.id,
      url: endpoint.url,
      events: ['transcode.done'],
      description: null,
      status: 'enabled',
    });
    const read = await call('GET', `/v1/webhooks/${endpoint.id}`, { headers: t.headers });
    expect(read.json.endpoint).toEqual(res.json.endpoint);

    const moved = await call('PATCH', `/v1/webhooks/${endpoint.id}`, {
      headers: t.headers,
      body: { url: `${receiver.base}/patch-moved`, description: 'moved' },
    });
    expect(moved.json.endpoint).toMatchObject({
      url: `${receiver.base}/patch-moved`,
      description: 'moved',
      events: ['transcode.done'],
    });
    const eventId = await ping(t.headers, endpoint.id);
    const got = await receivedOf('/patch-moved', 1);
    expect(got[0]?.headers['webhook-id']).toBe(eventId);
    expect(receiver.of('/patch')).toHaveLength(0);
  });

  it('refuses a URL outside the rules of the creation at /body/url and unknown members', async () => {
    const t = await tenant();
    const { endpoint } = await register(t.headers, '/patch-bad');
    const res = await call('PATCH', `/v1/webhooks/${endpoint.id}`, {
      headers: t.headers,
      body: { url: 'https://10.0.0.1/x' },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(JSON.stringify(res.json.errors)).toContain('/body/url');
    expectProblem(
      await call('PATCH', `/v1/webhooks/${endpoint.id}`, { headers: t.headers, body: { secret: 'x' } }),
      400,
      'validation_failed',
    );
    expect((await call('GET', `/v1/webhooks/${endpoint.id}`, { headers: t.headers })).json.endpoint).toEqual(
      endpoint,
    );
  });

  it('honours If-Match: the current tag changes it, a stale one answers 412 and changes nothing', async () => {
    const t = await tenant();
    const { endpoint } = await register(t.headers, '/patch-match');
    const read = await call('GET', `/v1/webhooks/${endpoint.id}`, { headers: t.headers });
    const etag = String(read.headers.get('etag'));
    expect(etag).toBeTruthy();
    const changed = await call('PATCH', `/v1/webhooks/${endpoint.id}`, {
      headers: { ...t.headers, 'if-match': etag },
      body: { description: 'first' },
    });
    expect(changed.status).toBe(200);
    expect(changed.json.endpoint).toMatchObject({ description: 'first' });
    const stale = await call('PATCH', `/v1/webhooks/${endpoint.id}`, {
      headers: { ...t.headers, 'if-match': etag },
      body: { description: 'second' },
    });
    expectProblem(stale, 412, 'precondition_failed');
    const now = await call('GET', `/v1/webhooks/${endpoint.id}`, { headers: t.headers });
    expect(now.json.endpoint).toMatchObject({ description: 'first' });
    expect(now.headers.get('etag')).not.toBe(etag);
  });

  it("answers 404 for another company's endpoint and leaves it as it was", async () => {
    const a = await tenant();
    const b = await tenant();
    const { endpoint } = await register(a.headers, '/patch-tenant');
    expectProblem(
      await call('PATCH', `/v1/webhooks/${endpoint.id}`, { headers: b.headers, body: { description: 'x' } }),
      404,
      'not_found',
    );
    expect((await call('GET', `/v1/webhooks/${endpoint.id}`, { headers: a.headers })).json.endpoint).toEqual(
      endpoint,
    );
  });

  it('disables an endpoint and re-enables one disabled by failures, clearing its failures', async () => {
    const t = await tenant();
    const { endpoint } = await register(t.headers, '/patch-enable');
    const off = await call('PATCH', `/v1/webhooks/${endpoint.id}`, {
      headers: t.headers,
      body: { enabled: false },
    });
    expect(off.json.endpoint).toMatchObject({
      status: 'disabled',
      disabledReason: 'Disabled through the API.',
    });
    expectProblem(
      await call('POST', `/v1/webhooks/${endpoint.id}/test`, { headers: t.headers }),
      409,
      'webhook_endpoint_disabled',
    );

    // As the delivery worker leaves an endpoint that kept failing.
    const { changeEndpoint } = await import('../../functions/shared/data/webhook-endpoints');
    const at = new Date().toISOString();
    await changeEndpoint(t.companyId, endpoint.id, {
      set: {
        disabledReason: 'Deliveries failed for 72 h; last answer: 503.',
        failingSince: at,
        failingMs: 259_200_000,
        lastFailedAt: at,
      },
    });
    const on = await call('PATCH', `/v1/webhooks/${endpoint.id}`, {
      headers: t.headers,
      body: { enabled: true },
    });
    expect(on.json.endpoint).toMatchObject({
      status: 'enabled',
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
    });
    const eventId = await ping(t.headers, endpoint.id);
    expect((await receivedOf('/patch-enable', 1))[0]?.headers['webhook-id']).toBe(eventId);
  });

  it('is the only way to change an endpoint: PUT answers 405 with PATCH allowed', async () => {
    const t = await tenant();
    const { endpoint } = await register(t.headers, '/patch-put');
    const res = await call('PUT', `/v1/webhooks/${endpoint.id}`, { headers: t.headers, body: {} });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('PATCH');
  });
});

describe('POST /v1/webhooks/{id}/rotate-secret', () => {
  it('signs with both secrets during the overlap, each signature verifiable with its own secret', async () => {
    const t = await tenant();
    const { endpoint, secret: oldSecret } = await register(t.headers, '/rotate');
    const keyed = { ...t.headers, 'idempotency-key': `rot-${Math.random().toString(36).slice(2)}` };
    const rotated = await call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {
      headers: keyed,
      body: {},
    });
    expect(rotated.status).toBe(200);
    const newSecret = String(rotated.json.secret);
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(newSecret).not.toBe(oldSecret);
    const until = Date.parse(String(rotated.json.previousSecretExpiresAt));
    expect(until - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    // A replay shows the secret no more, and rotates nothing.
    const replay = await call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {
      headers: keyed,
      body: {},
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.secret).toBeNull();

    await ping(t.headers, endpoint.id);
    const [got] = await receivedOf('/rotate', 1);
    if (!got) throw new Error('no delivery');
    const signatures = String(got.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    const [first = '', second = ''] = signatures;
    expect(verifySignature(newSecret, withSignature(got, first))).toBe(true);
    expect(verifySignature(oldSecret, withSignature(got, first))).toBe(false);
    expect(verifySignature(oldSecret, withSignature(got, second))).toBe(true);
    expect(verifySignature(newSecret, withSignature(got, second))).toBe(false);
    // A Standard Webhooks library accepts the delivery with either secret.
    for (const secret of [oldSecret, newSecret]) {
      expect(verifyWebhook(secret, got.body, got.headers as Record<string, string>).id).toBe(got.json.id);
    }
  });

  it('signs with the new secret alone after an overlap of 0, and a second rotation drops the oldest', async () => {
    const t = await tenant();
    const { endpoint, secret: first } = await register(t.headers, '/rotate-now');
    const second = await call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {
      headers: t.headers,
      body: { overlapSeconds: 600 },
    });
    const third = await call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {
      headers: t.headers,
      body: { overlapSeconds: 0 },
    });
    expect(third.json.previousSecretExpiresAt).toBeNull();
    const latest = String(third.json.secret);
    await ping(t.headers, endpoint.id);
    const [got] = await receivedOf('/rotate-now', 1);
    if (!got) throw new Error('no delivery');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifySignature(latest, got)).toBe(true);
    expect(verifySignature(String(second.json.secret), got)).toBe(false);
    expect(verifySignature(first, got)).toBe(false);
  });

  it("refuses an overlap over seven days, and another company's endpoint with 404", async () => {
    const a = await tenant();
    const b = await tenant();
    const { endpoint } = await register(a.headers, '/rotate-refused');
    expectProblem(
      await call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {
        headers: a.headers,
        body: { overlapSeconds: 7 * 86_400 + 1 },
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, { headers: b.headers, body: {} }),
      404,
      'not_found',
    );
  });
});

describe('GET /v1/webhooks/{id}/deliveries', () => {
  it("pages the endpoint's deliveries newest first, with the last answer and its duration", async () => {
    const t = await tenant();
    const { endpoint } = await register(t.headers, '/log');
    await register(t.headers, '/log-other');
    receiver.answer('/log', [200, 410, 200]);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await ping(t.headers, endpoint.id);
      await settled(t.headers, id, 1);
      ids.push(id);
    }
    const first = await eventually(
      () => call('GET', `/v1/webhooks/${endpoint.id}/deliveries?limit=2`, { headers: t.headers }),
      (r) => (r.json.deliveries as unknown[]).length === 2,
    );
    expect(first.status).toBe(200);
    const page = first.json.deliveries as Record<string, unknown>[];
    expect(page.map((d) => d.eventId)).toEqual([ids[2], ids[1]]);
    expect(page[0]).toMatchObject({ eventType: 'ping', status: 'delivered', attempts: 1, lastStatus: '200' });
    expect(page[1]).toMatchObject({ status: 'failed', attempts: 1, lastStatus: '410' });
    for (const d of page) expect(d.lastDurationMs).toEqual(expect.any(Number));
    expect(first.json.nextCursor).toBe(ids[1]);
    const second = await call(
      'GET',
      `/v1/webhooks/${endpoint.id}/deliveries?limit=2&cursor=${String(first.json.nextCursor)}`,
      { headers: t.headers },
    );
    expect((second.json.deliveries as { eventId: string }[]).map((d) => d.eventId)).toEqual([ids[0]]);
    expect(second.json.nextCursor).toBeNull();
  });

  it('lists the deliveries written before the log moved to the work index with the new ones, once each, in order', async () => {
    const t = await tenant();
    const { endpoint } = await register(t.headers, '/log-legacy');
    const { ddb, tableName } = await import('../../functions/shared/data/client');
    const { GetCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { deliveryKey } = await import('../../functions/shared/data/webhook-deliveries');
    const { indexPartitions } = await import('../../functions/shared/data/keys');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await ping(t.headers, endpoint.id);
      await settled(t.headers, id, 1);
      ids.push(id);
    }
    // The first and third were written by the earlier release: their place in the log is in `gsi1`.
    const legacy = [ids[0], ids[2]] as string[];
    for (const id of legacy) {
      await ddb.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: deliveryKey(t.companyId, id, endpoint.id),
          UpdateExpression: 'SET gsi1pk = :log, gsi1sk = :id REMOVE workpk, worksk',
          ExpressionAttributeValues: {
            ':log': indexPartitions.webhookDeliveryLog(t.companyId, endpoint.id),
            ':id': id,
          },
        }),
      );
    }
    const pageOf = async (cursor?: string) =>
      (
        await call(
          'GET',
          `/v1/webhooks/${endpoint.id}/deliveries?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
          { headers: t.headers },
        )
      ).json as { deliveries: { eventId: string; status: string }[]; nextCursor: string | null };
    const seen: string[] = [];
    let page = await eventually(
      () => pageOf(),
      (p) => p.deliveries[0]?.eventId === ids[3],
    );
    for (;;) {
      expect(page.deliveries).toEqual([expect.objectContaining({ status: 'delivered' })]);
      seen.push(...page.deliveries.map((d) => d.eventId));
      if (!page.nextCursor) break;
      page = await pageOf(page.nextCursor);
    }
    expect(seen).toEqual([...ids].reverse());
    // Sent again, a delivery of the earlier release moves its place to `work`: still listed once.
    const again = await call('POST', `/v1/events/${ids[0]}/redeliver`, {
      headers: t.headers,
      body: { endpointId: endpoint.id },
    });
    expect(again.status).toBe(202);
    await receivedOf('/log-legacy', 5);
    const { Item } = await ddb.send(
      new GetCommand({
        TableName: tableName(),
        Key: deliveryKey(t.companyId, ids[0] as string, endpoint.id),
        ConsistentRead: true,
      }),
    );
    expect(Item).toMatchObject({ workpk: indexPartitions.webhookDeliveryLog(t.companyId, endpoint.id) });
    expect(Item).not.toHaveProperty('gsi1pk');
    const all = await eventually(
      () => call('GET', `/v1/webhooks/${endpoint.id}/deliveries`, { headers: t.headers }),
      (r) => (r.json.deliveries as unknown[]).length === 4,
    );
    expect((all.json.deliveries as { eventId: string }[]).map((d) => d.eventId)).toEqual([...ids].reverse());
  });

  it("refuses a cursor that is not one of the list, and another company's endpoint with 404", async () => {
    const a = await tenant();
    const b = await tenant();
    const { endpoint } = await register(a.headers, '/log-refused');
    expectProblem(
      await call('GET', `/v1/webhooks/${endpoint.id}/deliveries?cursor=nope`, { headers: a.headers }),
      400,
      'validation_failed',
    );
    expectProblem(
      await call('GET', `/v1/webhooks/${endpoint.id}/deliveries`, { headers: b.headers }),
      404,
      'not_found',
    );
  });
});

describe('POST /v1/events/{id}/redeliver', () => {
  it('sends an event again to every endpoint it was sent to, with the same webhook-id', async () => {
    const t = await tenant();
    const one = await register(t.headers, '/again-one', ['transcode.done']);
    const two = await register(t.headers, '/again-two', ['*']);
    await register(t.headers, '/again-none', ['transcode.failed']);
    receiver.answer('/again-one', [410]);
    const { putEvent } = await import('../../functions/shared/data/events');
    const event = await putEvent({
      companyId: t.companyId,
      type: 'transcode.done',
      resourceId: 'tc_again',
      data: { id: 'tc_again' },
      now: new Date(),
    });
    const before = await settled(t.headers, event.id, 2);
    expect(before.find((d) => d.endpointId === one.endpoint.id)).toMatchObject({ status: 'failed' });

    const keyed = { ...t.headers, 'idempotency-key': `rd-${Math.random().toString(36).slice(2)}` };
    const res = await call('POST', `/v1/events/${event.id}/redeliver`, { headers: keyed, body: {} });
    expect(res.status).toBe(202);
    expect((res.json.event as { id: string }).id).toBe(event.id);
    const after = await settled(t.headers, event.id, 2);
    expect(after).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ endpointId: one.endpoint.id, status: 'delivered', attempts: 1 }),
        expect.objectContaining({ endpointId: two.endpoint.id, status: 'delivered', attempts: 1 }),
      ]),
    );
    const oneGot = await receivedOf('/again-one', 2);
    const twoGot = await receivedOf('/again-two', 2);
    for (const r of [...oneGot, ...twoGot]) expect(r.headers['webhook-id']).toBe(event.id);
    expect(verifySignature(one.secret, oneGot[1] as Received)).toBe(true);
    expect(receiver.of('/again-none')).toHaveLength(0);
    // A replay of the same key sends nothing more.
    const replay = await call('POST', `/v1/events/${event.id}/redeliver`, { headers: keyed, body: {} });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.of('/again-one')).toHaveLength(2);
  });

  it('sends an event again to one endpoint only, and refuses a disabled one with 409', async () => {
    const t = await tenant();
    const one = await register(t.headers, '/again-only', ['*']);
    const other = await register(t.headers, '/again-skipped', ['*']);
    const eventId = await ping(t.headers, one.endpoint.id);
    await settled(t.headers, eventId, 1);
    const res = await call('POST', `/v1/events/${eventId}/redeliver`, {
      headers: t.headers,
      body: { endpointId: other.endpoint.id },
    });
    expect(res.status).toBe(202);
    await settled(t.headers, eventId, 2);
    const got = await receivedOf('/again-skipped', 1);
    expect(got[0]?.headers['webhook-id']).toBe(eventId);
    expect(receiver.of('/again-only')).toHaveLength(1);

    await call('PATCH', `/v1/webhooks/${one.endpoint.id}`, { headers: t.headers, body: { enabled: false } });
    expectProblem(
      await call('POST', `/v1/events/${eventId}/redeliver`, {
        headers: t.headers,
        body: { endpointId: one.endpoint.id },
      }),
      409,
      'webhook_endpoint_disabled',
    );
  });

  it("answers 404 for another company's event or endpoint, an unknown event and an expired one", async () => {
    const a = await tenant();
    const b = await tenant();
    const { endpoint } = await register(a.headers, '/again-tenant');
    const own = await register(b.headers, '/again-tenant-b');
    const eventId = await ping(a.headers, endpoint.id);
    expectProblem(
      await call('POST', `/v1/events/${eventId}/redeliver`, { headers: b.headers, body: {} }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', `/v1/events/${eventId}/redeliver`, {
        headers: b.headers,
        body: { endpointId: own.endpoint.id },
      }),
      404,
      'not_found',
    );
    const bEvent = await ping(b.headers, own.endpoint.id);
    expectProblem(
      await call('POST', `/v1/events/${bEvent}/redeliver`, {
        headers: b.headers,
        body: { endpointId: endpoint.id },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', '/v1/events/evt_01jd9b4n6q8s0u2w4y6a8c0e2g/redeliver', {
        headers: a.headers,
        body: {},
      }),
      404,
      'not_found',
    );
    // An event past its retention (kept until the table's TTL removes it) is gone for redelivery too.
    const { putEvent } = await import('../../functions/shared/data/events');
    const old = await putEvent({
      companyId: a.companyId,
      type: 'transcode.done',
      resourceId: 'tc_old',
      data: { id: 'tc_old' },
      now: new Date(Date.now() - 31 * 86_400_000),
    });
    expectProblem(
      await call('POST', `/v1/events/${old.id}/redeliver`, { headers: a.headers, body: {} }),
      404,
      'not_found',
    );
  });
});
