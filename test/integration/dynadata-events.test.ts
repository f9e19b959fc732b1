import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS } from '../../functions/shared/routes/event-payloads';
import { call, createTenant, expectProblem } from './support';
import { eventually, startReceiver } from './webhook-receiver';
import { getRun, type RunBody, savedWorkflow } from './workflow-support';

/**
 * Dynadata change events (`dynadata.item.created`, `.updated`, `.deleted`): one per committed write, in the
 * write's own transaction, none for a refused one; webhook endpoints subscribe to the family with a filter by
 * item type; workflows are started by them, once per change, and a workflow whose writes re-trigger it stops
 * at the hop limit.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
type Delivery = {
  type: string;
  data: { type: string; _id: string; _version: number } & Record<string, unknown>;
};

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let owner: Tenant;
let other: Tenant;
const as = (t: Tenant, more: Record<string, string> = {}) => ({ 'x-api-key': t.apiKey, ...more });
const putType = (t: Tenant, name: string, properties: Record<string, unknown>) =>
  call('PUT', `/v1/dynadata/types/${name}`, {
    headers: as(t),
    body: { description: name, schema: { type: 'object', properties } },
  });

beforeAll(async () => {
  receiver = await startReceiver();
  owner = await createTenant({ plan: 'starter' });
  other = await createTenant({ plan: 'starter' });
  for (const t of [owner, other]) {
    expect((await putType(t, 'orders', { total: { type: 'number' }, note: { type: 'string' } })).status).toBe(
      201,
    );
    expect((await putType(t, 'notes', { text: { type: 'string' } })).status).toBe(201);
  }
});
afterAll(() => receiver.close());

const eventsOf = async (t: Tenant, type: string) => {
  const res = await call('GET', `/v1/events?type=${type}&limit=100`, { headers: as(t) });
  expect(res.status).toBe(200);
  return res.json.events as Delivery[];
};

describe('Dynadata change events', () => {
  it('delivers one event per committed change of the filtered type, in order, and none for a refused write', async () => {
    const filtered = await call('POST', '/v1/webhooks', {
      headers: as(owner),
      body: { url: `${receiver.base}/orders-only`, events: ['dynadata.item.*'], dynadataTypes: ['orders'] },
    });
    expect(filtered.status).toBe(201);
    expect(filtered.json.endpoint).toMatchObject({ events: ['dynadata.item.*'], dynadataTypes: ['orders'] });
    const foreign = await call('POST', '/v1/webhooks', {
      headers: as(other),
      body: { url: `${receiver.base}/other-company`, events: ['*'] },
    });
    expect(foreign.status).toBe(201);

    const created = await call('POST', '/v1/dynadata/type/orders/create', {
      headers: as(owner),
      body: { total: 10, note: 'first' },
    });
    expect(created.status).toBe(201);
    const id = created.json._id as string;
    // Refused writes: a schema violation, a stale If-Match, another company's delete.
    expectProblem(
      await call('POST', '/v1/dynadata/type/orders/create', { headers: as(owner), body: { total: 'ten' } }),
      400,
      'validation_failed',
    );
    expectProblem(
      await call('POST', '/v1/dynadata/type/orders/update', {
        headers: as(owner, { 'if-match': '"stale"' }),
        body: { _id: id, total: 11 },
      }),
      412,
      'precondition_failed',
    );
    expectProblem(
      await call('DELETE', `/v1/dynadata/type/orders/item/${id}`, { headers: as(other) }),
      404,
      'not_found',
    );
    const updated = await call('POST', '/v1/dynadata/type/orders/update', {
      headers: as(owner),
      body: { _id: id, total: 12, note: null },
    });
    expect(updated.status).toBe(200);
    // Another type: not for the filtered endpoint.
    expect(
      (await call('POST', '/v1/dynadata/type/notes/create', { headers: as(owner), body: { text: 'hi' } }))
        .status,
    ).toBe(201);
    expect((await call('DELETE', `/v1/dynadata/type/orders/item/${id}`, { headers: as(owner) })).status).toBe(
      200,
    );

    const got = await eventually(
      () => receiver.of('/orders-only'),
      (r) => r.length >= 3,
      30_000,
    );
    await new Promise((r) => setTimeout(r, 1500));
    const deliveries = receiver.of('/orders-only').map((r) => r.json as unknown as Delivery);
    expect(got.length).toBe(3);
    expect(deliveries.map((d) => [d.type, d.data.type, d.data._id, d.data._version])).toEqual([
      ['dynadata.item.created', 'orders', id, 1],
      ['dynadata.item.updated', 'orders', id, 2],
      ['dynadata.item.deleted', 'orders', id, 2],
    ]);
    expect(deliveries[0]?.data).toMatchObject({
      changedFields: ['note', 'total'],
      item: { _id: id, total: 10, note: 'first' },
    });
    expect(deliveries[1]?.data).toMatchObject({ changedFields: ['note', 'total'], item: { total: 12 } });
    expect(deliveries[1]?.data.item).not.toHaveProperty('note');
    expect(deliveries[2]?.data).toMatchObject({ item: { _id: id, total: 12 } });
    for (const d of deliveries) {
      const declared = EVENT_PAYLOADS()[d.type as 'dynadata.item.created'].safeParse(d);
      expect(declared.success, JSON.stringify(declared.error?.issues)).toBe(true);
    }
    // The events list shows them too (one created for each type); the other company's endpoint got nothing.
    expect((await eventsOf(owner, 'dynadata.item.created')).map((e) => e.data.type).sort()).toEqual([
      'notes',
      'orders',
    ]);
    expect(receiver.of('/other-company')).toEqual([]);
    expect(await eventsOf(other, 'dynadata.item.created')).toEqual([]);
  }, 60_000);

  it('inlines a small item and refers to a large one', async () => {
    const big = await call('POST', '/v1/dynadata/type/notes/create', {
      headers: as(owner),
      body: { text: 'x'.repeat(20_000) },
    });
    expect(big.status).toBe(201);
    const event = (await eventsOf(owner, 'dynadata.item.created')).find((e) => e.data._id === big.json._id);
    expect(event?.data).toMatchObject({ item: null, itemOmitted: true, changedFields: ['text'] });
  });

  it('refuses a filter that is not a list of type names, with pointers', async () => {
    expectProblem(
      await call('POST', '/v1/webhooks', {
        headers: as(owner),
        body: { url: `${receiver.base}/x`, events: ['dynadata.item.*'], dynadataTypes: [] },
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await call('POST', '/v1/webhooks', {
        headers: as(owner),
        body: { url: `${receiver.base}/x`, events: ['dynadata.thing.*'] },
      }),
      400,
      'validation_failed',
    );
  });

  it('starts a workflow once per created item of its type, and a workflow that re-triggers itself stops at the hop limit', async () => {
    await savedWorkflow(owner.companyId, {
      id: 'on-order',
      name: 'On a new order',
      on: { events: ['dynadata.item.created'], dynadataTypes: ['orders'] },
      steps: [{ id: 'noop', action: 'actions/speech/spoken-text', with: { markdown: 'Order' } }],
      return: { order: '{{ trigger.event.data._id }}', total: '{{ trigger.event.data.item.total }}' },
    });
    await savedWorkflow(owner.companyId, {
      id: 'loop',
      name: 'Writes what starts it',
      on: { events: ['dynadata.item.created'], dynadataTypes: ['notes'] },
      steps: [
        {
          id: 'again',
          action: 'actions/dynadata/create',
          with: { type: 'notes', item: { text: 'again' } },
        },
      ],
    });
    const ids: string[] = [];
    for (const total of [1, 2, 3]) {
      const res = await call('POST', '/v1/dynadata/type/orders/create', {
        headers: as(owner),
        body: { total },
      });
      ids.push(res.json._id as string);
    }
    const first = await call('POST', '/v1/dynadata/type/notes/create', {
      headers: as(owner),
      body: { text: 'start' },
    });
    expect(first.status).toBe(201);
    type Entry = { runId: string; status: string };
    const runsOf = async (workflowId: string) =>
      (await call('GET', `/v1/workflows/${workflowId}/runs?limit=100`, { headers: as(owner) })).json
        .runs as Entry[];
    const orders = await eventually(
      () => runsOf('on-order'),
      (runs) => runs.length >= 3 && runs.every((r) => r.status !== 'running'),
      60_000,
    );
    const outputs = await Promise.all(
      orders.map(async (r) => ((await getRun(owner.apiKey, 'on-order', r.runId)).json.run as RunBody).result),
    );
    expect(outputs.map((o) => (o as { order: string }).order).sort()).toEqual([...ids].sort());
    // The chain: a run at each hop 0 to 3, the last one's write refused (hop_limit_exceeded): it ends there.
    const loop = await eventually(
      () => runsOf('loop'),
      (runs) => runs.length >= 4 && runs.every((r) => r.status !== 'running'),
      60_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    const settled = await runsOf('loop');
    expect(settled).toHaveLength(4);
    const stopped = settled.filter((r) => r.status !== 'success');
    expect(stopped).toHaveLength(1);
    const last = await getRun(owner.apiKey, 'loop', stopped[0]?.runId ?? '');
    expect(JSON.stringify(last.json.run)).toContain('hop_limit_exceeded');
    expect(loop.length).toBe(4);
    expect((await runsOf('on-order')).length).toBe(3);
  }, 120_000);
});
