import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS } from '../../functions/shared/routes/event-payloads';
import { call, createTenant, expectProblem } from './support';
import { eventually, startReceiver } from './webhook-receiver';
import { getRun, type RunBody, savedWorkflow } from './workflow-support';

const { ddb, tableName } = await import('../../functions/shared/data/client');
const { itemKey } = await import('../../functions/shared/data/dynadata-items');
const { eventPartition, toEventRecord } = await import('../../functions/shared/data/events');
const { getTypeCounter } = await import('../../functions/shared/data/dynadata-type-counters');

/**
 * Dynadata change events (`dynadata.item.created`, `.updated`, `.deleted`): one per committed write, raised
 * from the table's stream a moment after it, none for a refused one nor for a deleting type's sweep; webhook
 * endpoints subscribe to the family with a filter by item type; workflows are started by them, once per
 * change, and a workflow whose writes re-trigger it stops at the hop limit (the hop travels on the item, never
 * shown in a read).
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

/** The stored events of the company (with their hop, which the public list does not show). */
const storedEvents = async (t: Tenant) =>
  (
    (
      await ddb.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': eventPartition(t.companyId) },
        }),
      )
    ).Items ?? []
  )
    .filter((item) => item.entity === 'event')
    .map(toEventRecord);

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
    const listed = await eventually(
      () => eventsOf(owner, 'dynadata.item.created'),
      (events) => events.length >= 2,
    );
    expect(listed.map((e) => e.data.type).sort()).toEqual(['notes', 'orders']);
    expect(receiver.of('/other-company')).toEqual([]);
    expect(await eventsOf(other, 'dynadata.item.created')).toEqual([]);
  }, 60_000);

  it('inlines a small item and refers to a large one', async () => {
    const big = await call('POST', '/v1/dynadata/type/notes/create', {
      headers: as(owner),
      body: { text: 'x'.repeat(20_000) },
    });
    expect(big.status).toBe(201);
    const events = await eventually(
      () => eventsOf(owner, 'dynadata.item.created'),
      (listed) => listed.some((e) => e.data._id === big.json._id),
    );
    const event = events.find((e) => e.data._id === big.json._id);
    expect(event?.data).toMatchObject({ item: null, itemOmitted: true, changedFields: ['text'] });
  });

  it("carries the hop of each write, the delete's too, and never shows it in a read", async () => {
    const created = await call('POST', '/v1/dynadata/type/notes/create', {
      headers: as(owner, { 'x-workflow-hop': '2' }),
      body: { text: 'deep' },
    });
    expect(created.status).toBe(201);
    const id = created.json._id as string;
    // The hop is on the stored item (for the stream), and in no read of it.
    const raw = await ddb.send(
      new GetCommand({ TableName: tableName(), Key: itemKey(owner.companyId, 'notes', id) }),
    );
    expect(raw.Item?._hop).toBe(2);
    const reads = [
      (await call('GET', `/v1/dynadata/type/notes/item/${id}`, { headers: as(owner) })).json,
      ...((await call('POST', '/v1/dynadata/type/notes/list', { headers: as(owner), body: { limit: 100 } }))
        .json.items as Record<string, unknown>[]),
    ];
    expect(reads.some((item) => item._id === id)).toBe(true);
    for (const item of reads) expect(JSON.stringify(item)).not.toMatch(/_hop|_quiet|"hop"/);
    // An update at hop 0 clears it; a delete at hop 3 carries 3.
    expect(
      (
        await call('POST', '/v1/dynadata/type/notes/update', {
          headers: as(owner),
          body: { _id: id, text: 'shallow' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('DELETE', `/v1/dynadata/type/notes/item/${id}`, {
          headers: as(owner, { 'x-workflow-hop': '3' }),
        })
      ).status,
    ).toBe(200);
    const events = await eventually(
      async () => (await storedEvents(owner)).filter((e) => e.resourceId === `dd:notes:${id}`),
      (found) => found.length >= 3,
    );
    expect(events.map((e) => [e.type, e.hop ?? 0]).sort()).toEqual([
      ['dynadata.item.created', 2],
      ['dynadata.item.deleted', 3],
      ['dynadata.item.updated', 0],
    ]);
    // Listed newest first: the delete, the update, the create.
    const listed = (await call('GET', '/v1/events?limit=100', { headers: as(owner) })).json.events as {
      id: string;
      type: string;
      resourceId?: string;
      data: { _id?: string };
    }[];
    expect(listed.filter((e) => e.data._id === id).map((e) => e.type)).toEqual([
      'dynadata.item.deleted',
      'dynadata.item.updated',
      'dynadata.item.created',
    ]);
  });

  it('raises no event for the items a type deletion sweeps, and counts contacts from the stream', async () => {
    expect((await putType(owner, 'scratch', { n: { type: 'number' } })).status).toBe(201);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const res = await call('POST', '/v1/dynadata/type/scratch/create', { headers: as(owner), body: { n } });
      ids.push(res.json._id as string);
    }
    const created = await eventually(
      async () => (await storedEvents(owner)).filter((e) => e.resourceId.startsWith('dd:scratch:')),
      (found) => found.length >= 3,
    );
    expect(created).toHaveLength(3);
    const deletion = await call('DELETE', '/v1/dynadata/types/scratch?deleteItems=true', {
      headers: as(owner),
    });
    expect(deletion.status).toBe(202);
    await eventually(
      async () => (await call('GET', '/v1/dynadata/types/scratch', { headers: as(owner) })).status,
      (status) => status === 404,
    );
    await new Promise((r) => setTimeout(r, 2000));
    const after = (await storedEvents(owner)).filter((e) => e.resourceId.startsWith('dd:scratch:'));
    expect(after.map((e) => e.type)).toEqual([
      'dynadata.item.created',
      'dynadata.item.created',
      'dynadata.item.created',
    ]);

    // A contact counts on its type a moment after its write, once.
    const countOf = async () => (await getTypeCounter(other.companyId, 'contacts'))?.itemCount ?? 0;
    const before = await countOf();
    const contact = await call('POST', '/v1/dynadata/type/contacts/create', {
      headers: as(other),
      body: { name: 'Ada' },
    });
    expect(contact.status).toBe(201);
    expect(await eventually(countOf, (n) => n === before + 1)).toBe(before + 1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await countOf()).toBe(before + 1);
  }, 60_000);

  it('leaves alone a contact written before events came from the stream, and raises its update and delete made since', async () => {
    const t = await createTenant({ plan: 'starter' });
    const countOf = async () => (await getTypeCounter(t.companyId, 'contacts'))?.itemCount ?? 0;
    const create = async (name: string) =>
      (await call('POST', '/v1/dynadata/type/contacts/create', { headers: as(t), body: { name } })).json
        ._id as string;
    const resourceEvents = async (id: string) =>
      (await storedEvents(t)).filter((e) => e.resourceId === `dd:contacts:${id}`).map((e) => e.type);
    const id = await create('Ada');
    expect(
      await eventually(
        () => resourceEvents(id),
        (types) => types.length === 1,
      ),
    ).toEqual(['dynadata.item.created']);
    expect(await eventually(countOf, (n) => n === 1)).toBe(1);
    // An update as the code before wrote it (its event with it, in its transaction): no `_streamed`.
    const key = itemKey(t.companyId, 'contacts', id);
    const stored = (await ddb.send(new GetCommand({ TableName: tableName(), Key: key }))).Item ?? {};
    const { _streamed, ...legacy } = stored;
    expect(_streamed).toBe(true);
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...legacy, _version: 2, data: { name: 'Ada L.' } },
      }),
    );
    // A later contact's event has come through the stream: the write before it raised none.
    const later = await create('Later');
    await eventually(
      () => resourceEvents(later),
      (types) => types.length === 1,
    );
    expect(await resourceEvents(id)).toEqual(['dynadata.item.created']);
    expect(await eventually(countOf, (n) => n === 2)).toBe(2);

    // Written since: the update is raised, and the delete (the item marked first) too, and counted out.
    const updated = await call('POST', '/v1/dynadata/type/contacts/update', {
      headers: as(t),
      body: { _id: id, name: 'Ada Lovelace' },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).not.toHaveProperty('_streamed');
    const removed = await call('DELETE', `/v1/dynadata/type/contacts/item/${id}`, { headers: as(t) });
    expect(removed.status).toBe(200);
    expect(
      await eventually(
        () => resourceEvents(id),
        (types) => types.length >= 3,
      ),
    ).toEqual(['dynadata.item.created', 'dynadata.item.updated', 'dynadata.item.deleted']);
    expect(await eventually(countOf, (n) => n === 1)).toBe(1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await resourceEvents(id)).toHaveLength(3);
    expect(await countOf()).toBe(1);
  }, 60_000);

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
