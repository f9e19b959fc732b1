import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';
import { eventually, startReceiver, verifySignature } from './webhook-receiver';

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const tenant = async (plan?: string) => {
  const t = await createTenant(plan ? { plan } : {});
  return { ...t, headers: { 'x-api-key': t.apiKey } };
};

const register = (headers: Record<string, string>, url: string, events: string[] = ['*']) =>
  call('POST', '/v1/webhooks', { headers, body: { url, events, description: 'test' } });

describe('webhook endpoints', () => {
  it('never shows the secret again in an idempotent replay, nor keeps it with the key, before or after a delete', async () => {
    const t = await tenant();
    const keyed = { ...t.headers, 'idempotency-key': `wh-${Math.random().toString(36).slice(2)}` };
    const body = { url: `${receiver.base}/replay`, events: ['*'], description: 'replayed' };
    const created = await call('POST', '/v1/webhooks', { headers: keyed, body });
    expect(created.status).toBe(201);
    const secret = String(created.json.secret);
    expect(secret).toMatch(/^whsec_/);
    const endpoint = created.json.endpoint as { id: string };

    // The record kept with the key holds no secret at rest.
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { ddb, tableName } = await import('../../functions/shared/data/client');
    const { idempotencyKey } = await import('../../functions/shared/data/idempotency');
    const stored = await ddb.send(
      new GetCommand({
        TableName: tableName(),
        Key: idempotencyKey(t.companyId, 'createWebhookEndpoint', keyed['idempotency-key']),
      }),
    );
    expect(stored.Item?.status).toBe('done');
    expect(JSON.stringify(stored.Item)).not.toContain(secret);

    // While the endpoint exists: the same answer, the secret left out.
    const whileExists = await call('POST', '/v1/webhooks', { headers: keyed, body });
    expect(whileExists.status).toBe(201);
    expect(whileExists.headers.get('idempotent-replayed')).toBe('true');
    expect(whileExists.json).toEqual({ endpoint: created.json.endpoint, secret: null });

    // After the delete: still no secret, and no new endpoint.
    expect((await call('DELETE', `/v1/webhooks/${endpoint.id}`, { headers: t.headers })).status).toBe(200);
    const afterDelete = await call('POST', '/v1/webhooks', { headers: keyed, body });
    expect(afterDelete.status).toBe(201);
    expect(afterDelete.headers.get('idempotent-replayed')).toBe('true');
    expect(afterDelete.json.secret).toBeNull();
    expect(JSON.stringify(afterDelete.json)).not.toContain(secret);
    expect((await call('GET', '/v1/webhooks', { headers: t.headers })).json.endpoints).toEqual([]);
  });

  it('leaves the secret out of the replay of an answer kept with it, as answers were kept before', async () => {
    const t = await tenant();
    const keyed = { ...t.headers, 'idempotency-key': `wh-${Math.random().toString(36).slice(2)}` };
    const body = { url: `${receiver.base}/kept`, events: ['*'] };
    const created = await call('POST', '/v1/webhooks', { headers: keyed, body });
    expect(created.status).toBe(201);
    const { completeIdempotencyKey } = await import('../../functions/shared/data/idempotency');
    await completeIdempotencyKey(t.companyId, 'createWebhookEndpoint', keyed['idempotency-key'], {
      status: 201,
      body: created.json,
    });
    const replay = await call('POST', '/v1/webhooks', { headers: keyed, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual({ endpoint: created.json.endpoint, secret: null });
  });

  it('creates, lists, reads and deletes an endpoint; the secret is shown once', async () => {
    const t = await tenant();
    const created = await register(t.headers, `${receiver.base}/crud`, ['transcode.done', 'transcode.done']);
    expect(created.status).toBe(201);
    expect(created.json.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const endpoint = created.json.endpoint as Record<string, unknown>;
    expect(endpoint).toMatchObject({ status: 'enabled', events: ['transcode.done'], disabledReason: null });
    expect(endpoint).not.toHaveProperty('secret');
    const list = await call('GET', '/v1/webhooks', { headers: t.headers });
    expect(list.json.endpoints).toEqual([endpoint]);
    const one = await call('GET', `/v1/webhooks/${endpoint.id}`, { headers: t.headers });
    expect(one.json.endpoint).toEqual(endpoint);
    expect((await call('DELETE', `/v1/webhooks/${endpoint.id}`, { headers: t.headers })).json).toEqual({
      deleted: true,
      id: endpoint.id,
    });
    expectProblem(await call('GET', `/v1/webhooks/${endpoint.id}`, { headers: t.headers }), 404, 'not_found');
    expectProblem(
      await call('DELETE', `/v1/webhooks/${endpoint.id}`, { headers: t.headers }),
      404,
      'not_found',
    );
  });

  it('refuses URLs outside the webhook address rules at /body/url', async () => {
    const t = await tenant();
    for (const url of [
      'http://example.com/x',
      'https://10.0.0.1/x',
      'https://user:pw@example.com/',
      'nope',
      `${receiver.base}/a\r\nX-Injected: 1`,
      'https:///x',
      ` ${receiver.base}/lead`,
      `${receiver.base.replace(/:\d+$/, ':0')}/zero`,
      `${receiver.base.replace('//', '//@')}/at`,
      `${receiver.base}/frag#part`,
    ]) {
      const res = await register(t.headers, url);
      expectProblem(res, 400, 'validation_failed');
      expect(JSON.stringify(res.json.errors), url).toContain('/body/url');
    }
    expect((await call('GET', '/v1/webhooks', { headers: t.headers })).json.endpoints).toEqual([]);
  });

  it('stores and answers the URL as the parser serializes it', async () => {
    const t = await tenant();
    const created = await register(
      t.headers,
      `${receiver.base.toUpperCase().replace('HTTP:', 'http:')}/a/../Norm?x=1`,
    );
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect((created.json.endpoint as { url: string }).url).toBe(`${receiver.base}/Norm?x=1`);
  });

  it("caps the company's endpoints at its plan's webhookEndpoints", async () => {
    const t = await tenant('free');
    for (let i = 0; i < 3; i++)
      expect((await register(t.headers, `${receiver.base}/cap${i}`)).status).toBe(201);
    const refused = await register(t.headers, `${receiver.base}/cap3`);
    expectProblem(refused, 403, 'webhook_endpoint_limit_reached');
    expect(refused.json.limit).toBe(3);
  });

  it("never shows another tenant's endpoints or events", async () => {
    const a = await tenant();
    const b = await tenant();
    const endpoint = (await register(a.headers, `${receiver.base}/tenant-a`)).json.endpoint as { id: string };
    const ping = await call('POST', `/v1/webhooks/${endpoint.id}/test`, { headers: a.headers });
    const eventId = (ping.json.event as { id: string }).id;
    expectProblem(await call('GET', `/v1/webhooks/${endpoint.id}`, { headers: b.headers }), 404, 'not_found');
    expectProblem(
      await call('POST', `/v1/webhooks/${endpoint.id}/test`, { headers: b.headers }),
      404,
      'not_found',
    );
    expectProblem(
      await call('DELETE', `/v1/webhooks/${endpoint.id}`, { headers: b.headers }),
      404,
      'not_found',
    );
    expectProblem(await call('GET', `/v1/events/${eventId}`, { headers: b.headers }), 404, 'not_found');
    expect((await call('GET', '/v1/webhooks', { headers: b.headers })).json.endpoints).toEqual([]);
    expect((await call('GET', '/v1/events', { headers: b.headers })).json.events).toEqual([]);
  });

  it('needs webhooks:read and webhooks:write', async () => {
    const t = await createTenant({ scopes: ['webhooks:read'] });
    const headers = { 'x-api-key': t.apiKey };
    expect((await call('GET', '/v1/webhooks', { headers })).status).toBe(200);
    expectProblem(await register(headers, `${receiver.base}/scope`), 403, 'insufficient_scope');
  });

  it('sends a signed ping to the tested endpoint only, with the event id as webhook-id', async () => {
    const t = await tenant();
    const created = await register(t.headers, `${receiver.base}/ping`);
    await register(t.headers, `${receiver.base}/ping-other`);
    const { secret } = created.json as { secret: string };
    const id = (created.json.endpoint as { id: string }).id;
    const ping = await call('POST', `/v1/webhooks/${id}/test`, { headers: t.headers });
    expect(ping.status).toBe(202);
    const event = ping.json.event as { id: string; type: string };
    expect(event).toMatchObject({ type: 'ping', data: { endpointId: id } });
    const got = await eventually(
      () => receiver.of('/ping'),
      (r) => r.length > 0,
    );
    expect(got).toHaveLength(1);
    expect(got[0]?.headers['webhook-id']).toBe(event.id);
    expect(verifySignature(secret, got[0] as never)).toBe(true);
    expect(got[0]?.json).toEqual(event);
    expect(receiver.of('/ping-other')).toHaveLength(0);
    const detail = await eventually(
      () => call('GET', `/v1/events/${event.id}`, { headers: t.headers }),
      (r) => (r.json.event as { deliveries: { status: string }[] }).deliveries[0]?.status === 'delivered',
    );
    expect((detail.json.event as { deliveries: unknown[] }).deliveries).toEqual([
      expect.objectContaining({ endpointId: id, status: 'delivered', attempts: 1, lastStatus: '200' }),
    ]);
  });

  it('retries 5xx, 408 and 429 with the same webhook-id until the endpoint accepts', async () => {
    const t = await tenant();
    receiver.answer('/flaky', [503, 408, 429]);
    const created = await register(t.headers, `${receiver.base}/flaky`);
    const id = (created.json.endpoint as { id: string }).id;
    const event = (await call('POST', `/v1/webhooks/${id}/test`, { headers: t.headers })).json.event as {
      id: string;
    };
    const got = await eventually(
      () => receiver.of('/flaky'),
      (r) => r.length >= 4,
    );
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id, event.id, event.id]);
    for (const r of got) expect(verifySignature(created.json.secret as string, r)).toBe(true);
    const detail = await eventually(
      () => call('GET', `/v1/events/${event.id}`, { headers: t.headers }),
      (r) => (r.json.event as { deliveries: { status: string }[] }).deliveries[0]?.status === 'delivered',
    );
    expect((detail.json.event as { deliveries: unknown[] }).deliveries[0]).toMatchObject({
      status: 'delivered',
      attempts: 4,
      lastStatus: '200',
    });
  });

  it('ends a delivery refused with another 4xx at once, without retrying', async () => {
    const t = await tenant();
    receiver.answer('/gone', [410]);
    const created = await register(t.headers, `${receiver.base}/gone`);
    const id = (created.json.endpoint as { id: string }).id;
    const event = (await call('POST', `/v1/webhooks/${id}/test`, { headers: t.headers })).json.event as {
      id: string;
    };
    const detail = await eventually(
      () => call('GET', `/v1/events/${event.id}`, { headers: t.headers }),
      (r) => (r.json.event as { deliveries: { status: string }[] }).deliveries[0]?.status === 'failed',
    );
    expect((detail.json.event as { deliveries: unknown[] }).deliveries[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastStatus: '410',
    });
    expect(receiver.of('/gone')).toHaveLength(1);
  });

  it('disables an endpoint that keeps failing, with the reason on GET, and refuses to test it', async () => {
    const t = await tenant();
    receiver.answer('/down', Array(100).fill(500));
    const created = await register(t.headers, `${receiver.base}/down`);
    const id = (created.json.endpoint as { id: string }).id;
    await call('POST', `/v1/webhooks/${id}/test`, { headers: t.headers });
    const endpoint = await eventually(
      async () =>
        (await call('GET', `/v1/webhooks/${id}`, { headers: t.headers })).json.endpoint as {
          status: string;
          disabledReason: string | null;
        },
      (e) => e.status === 'disabled',
      40_000,
    );
    expect(endpoint.status).toBe('disabled');
    expect(endpoint.disabledReason).toContain('500');
    // The time it was tried and failing, in seconds (the stacks under test disable after 8 s).
    expect(endpoint.disabledReason).toMatch(/^Deliveries failed for \d+ s; /);
    expectProblem(
      await call('POST', `/v1/webhooks/${id}/test`, { headers: t.headers }),
      409,
      'webhook_endpoint_disabled',
    );
  }, 60_000);
});
