import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';
import { eventually } from './webhook-receiver';

const { readUsage } = await import('../../functions/shared/data/usage-meters');
const { ITEMS_PER_SWEEP } = await import('../../functions/shared/domain/dynadata/type-sweep');

/**
 * `GET/PUT/DELETE /v1/dynadata/types/{type}`: a company defines its own types through the API (scope
 * `dynadata:admin`), each change checked against the items it holds.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
let tenant: Tenant;
let other: Tenant;
const as = (t: Tenant, more: Record<string, string> = {}) => ({ 'x-api-key': t.apiKey, ...more });
const putType = (t: Tenant, name: string, body: unknown, more: Record<string, string> = {}) =>
  call('PUT', `/v1/dynadata/types/${name}`, { headers: as(t, more), body });
const create = (t: Tenant, type: string, item: unknown) =>
  call('POST', `/v1/dynadata/type/${type}/create`, { headers: as(t), body: item });

const tickets = (extra: Record<string, unknown> = {}, required: string[] = ['title']) => ({
  description: 'Support tickets',
  schema: {
    type: 'object',
    properties: { title: { type: 'string', maxLength: 200 }, priority: { type: 'number' }, ...extra },
    required,
  },
});

beforeAll(async () => {
  tenant = await createTenant();
  other = await createTenant();
});

describe('Dynadata types over the API', () => {
  it('defines a type (201), stores a new version (200) and shows it with an ETag', async () => {
    const created = await putType(tenant, 'tickets', tickets());
    expect(created.status).toBe(201);
    expect(created.json.type).toMatchObject({
      name: 'tickets',
      version: 1,
      builtIn: false,
      status: 'active',
    });
    const read = await call('GET', '/v1/dynadata/types/tickets', { headers: as(tenant) });
    expect(read.status).toBe(200);
    const etag = read.headers.get('etag') as string;
    expect(etag).toBeTruthy();
    const next = await putType(tenant, 'tickets', tickets({ note: { type: 'string' } }), {
      'if-match': etag,
    });
    expect(next.status).toBe(200);
    expect(next.json.type).toMatchObject({ version: 2 });
    expectProblem(
      await putType(tenant, 'tickets', tickets(), { 'if-match': etag }),
      412,
      'precondition_failed',
    );
  });

  it('refuses an invalid schema with every violation by pointer', async () => {
    const refused = await putType(tenant, 'broken', {
      schema: { type: 'object', properties: { a: { type: 'strnig' }, b: { minLength: -1 } } },
      functions: ['nope'],
    });
    expectProblem(refused, 400, 'validation_failed');
    const pointers = (refused.json.errors as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers.length).toBeGreaterThanOrEqual(2);
    for (const pointer of pointers) expect(pointer).toMatch(/^\/body\/(schema|functions)/);
    expectProblem(await call('GET', '/v1/dynadata/types/broken', { headers: as(tenant) }), 404, 'not_found');
  });

  it('passes additive changes with items, and refuses one items would fail with their count and a sample', async () => {
    await putType(tenant, 'orders', {
      schema: { type: 'object', properties: { title: { type: 'string' }, amount: { type: 'number' } } },
    });
    for (const [title, amount] of [
      ['a', 5],
      ['b', 50],
      ['c', 500],
    ] as const)
      expect((await create(tenant, 'orders', { title, amount })).status).toBe(201);
    const additive = await putType(tenant, 'orders', {
      schema: {
        type: 'object',
        properties: { title: { type: 'string' }, amount: { type: 'number' }, note: { type: 'string' } },
      },
    });
    expect(additive.status).toBe(200);
    const narrowed = await putType(tenant, 'orders', {
      schema: {
        type: 'object',
        properties: { title: { type: 'string' }, amount: { type: 'number', maximum: 10 } },
      },
    });
    expectProblem(narrowed, 409, 'type_change_breaks_items');
    expect(narrowed.json).toMatchObject({ breakingItems: 2, complete: true });
    expect(narrowed.json.sample).toHaveLength(2);
    const required = await putType(tenant, 'orders', {
      schema: {
        type: 'object',
        properties: { title: { type: 'string' }, amount: { type: 'number' }, owner: { type: 'string' } },
        required: ['owner'],
      },
    });
    expectProblem(required, 409, 'type_change_breaks_items');
    expect(required.json).toMatchObject({ breakingItems: 3 });
    // Nothing was stored by a refused change: the items still validate and the version did not move.
    const read = await call('GET', '/v1/dynadata/types/orders', { headers: as(tenant) });
    expect(read.json.type).toMatchObject({ version: 2 });
  });

  it('counts an item written while a change is checked against that change, and refuses the change', async () => {
    const types = await import('../../functions/shared/data/dynadata-types');
    const owner = await createTenant();
    const schema = (maximum?: number) => ({
      type: 'object',
      properties: {
        title: { type: 'string' },
        priority: { type: 'number', ...(maximum ? { maximum } : {}) },
      },
    });
    await putType(owner, 'tasks', { schema: schema() });
    const item = await create(owner, 'tasks', { title: 'a', priority: 1 });
    const version = async () => (await types.getCustomType(owner.companyId, 'tasks'))?.typeVersion ?? 0;
    // A change to `maximum: 5` under check (as a PUT's check marks it), the item read as valid by it...
    const change = { typeVersion: await version(), token: 'check-1', schemaJson: JSON.stringify(schema(5)) };
    expect(await types.beginTypeChange(owner.companyId, 'tasks', change, new Date())).toBe(true);
    // ...another PUT meanwhile is refused: one change is checked at a time.
    expectProblem(await putType(owner, 'tasks', { schema: schema(50) }), 409, 'conflict');
    // ...then updated, valid for the stored schema but not for the change: the write counts itself.
    const patched = await call('POST', '/v1/dynadata/type/tasks/update', {
      headers: as(owner),
      body: { _id: item.json._id, priority: 9 },
    });
    expect(patched.status).toBe(200);
    // A write the change accepts counts nothing.
    expect((await create(owner, 'tasks', { title: 'b', priority: 2 })).status).toBe(201);
    expect((await types.getCustomType(owner.companyId, 'tasks'))?.change?.breaks).toBe(1);
    // So the change, its check of the stored items done, is refused when it is stored.
    const previous = await types.getCustomType(owner.companyId, 'tasks');
    if (!previous) throw new Error('the type is gone');
    const definition = {
      name: 'tasks',
      description: '',
      schemaJson: change.schemaJson,
      indexed: [],
      functions: [],
    };
    await expect(
      types.putCustomType(owner.companyId, definition, previous, new Date(), change.token),
    ).rejects.toMatchObject({ name: 'ChangeBreaksItemsError', breaks: 1 });
    await types.endTypeChange(owner.companyId, 'tasks', change.token);
    expect((await types.getCustomType(owner.companyId, 'tasks'))?.change).toBeUndefined();
    // A mark left by a check that never ended (a crash) is taken over after a minute.
    const old = new Date(Date.now() - 120_000);
    const stale = { typeVersion: await version(), token: 'check-2', schemaJson: JSON.stringify(schema(5)) };
    expect(await types.beginTypeChange(owner.companyId, 'tasks', stale, old)).toBe(true);
    const additive = await putType(owner, 'tasks', { schema: schema(100) });
    expect(additive.status).toBe(200);
    expect((await types.getCustomType(owner.companyId, 'tasks'))?.change).toBeUndefined();
    // The items are untouched and still valid.
    const listed = await call('POST', '/v1/dynadata/type/tasks/list', { headers: as(owner), body: {} });
    expect((listed.json.items as unknown[]).length).toBe(2);
  });

  it('keeps built-in types read-only, another company out, and needs dynadata:admin', async () => {
    expectProblem(await putType(tenant, 'contacts', tickets()), 403, 'builtin_type_read_only');
    expectProblem(
      await call('DELETE', '/v1/dynadata/types/messages', { headers: as(tenant) }),
      403,
      'builtin_type_read_only',
    );
    expectProblem(await call('GET', '/v1/dynadata/types/tickets', { headers: as(other) }), 404, 'not_found');
    expectProblem(
      await call('DELETE', '/v1/dynadata/types/tickets', { headers: as(other) }),
      404,
      'not_found',
    );
    const reader = await createTenant({ scopes: ['dynadata:read', 'dynadata:write'] });
    expectProblem(await putType(reader, 'tickets', tickets()), 403, 'insufficient_scope');
  });

  it("holds the plan's number of types and fields per type", async () => {
    const small = await createTenant({ limits: { dynadataTypes: 1, dynadataFieldsPerType: 2 } });
    const wide = await putType(small, 'wide', {
      schema: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
      },
    });
    expectProblem(wide, 403, 'dynadata_field_limit_reached');
    expect(
      (await putType(small, 'one', { schema: { type: 'object', properties: { a: { type: 'string' } } } }))
        .status,
    ).toBe(201);
    expectProblem(
      await putType(small, 'two', { schema: { type: 'object', properties: { a: { type: 'string' } } } }),
      403,
      'dynadata_type_limit_reached',
    );
  });

  it('deletes a type of many items in the background, read-only meanwhile, its progress readable', async () => {
    const owner = await createTenant();
    await putType(owner, 'logs', { schema: { type: 'object', properties: { text: { type: 'string' } } } });
    const bytesBefore = (await readUsage(owner.companyId, new Date(), 'month')).databaseBytes;
    // Several turns of the background deletion (200 items a turn), written in-process to save time.
    const { createItem } = await import('../../functions/shared/domain/dynadata/items');
    const total = ITEMS_PER_SWEEP * 2 + 50;
    for (let i = 0; i < total; i += 25) {
      await Promise.all(
        Array.from({ length: 25 }, (_, j) =>
          createItem(owner.companyId, 'logs', { text: `t${i + j}` }, new Date()),
        ),
      );
    }
    const started = await call('DELETE', '/v1/dynadata/types/logs?deleteItems=true', { headers: as(owner) });
    expect(started.status).toBe(202);
    expect(started.json).toEqual({
      deleted: false,
      name: 'logs',
      status: 'deleting',
      deletedItems: 0,
      remainingItems: total,
    });
    // Read-only while deleting: no new item, no new definition.
    expectProblem(await create(owner, 'logs', { text: 'late' }), 409, 'type_deleting');
    expectProblem(await putType(owner, 'logs', tickets()), 409, 'type_deleting');
    const seen: { deletedItems: number; remainingItems: number }[] = [];
    for (;;) {
      const read = await call('GET', '/v1/dynadata/types/logs', { headers: as(owner) });
      if (read.status === 404) break;
      const type = read.json.type as { status: string; deletedItems: number; remainingItems: number };
      expect(type.status).toBe('deleting');
      seen.push({ deletedItems: type.deletedItems, remainingItems: type.remainingItems });
      await new Promise((r) => setTimeout(r, 100));
    }
    // Progress grew as the items went, and every item was counted once.
    expect(seen.length).toBeGreaterThan(0);
    for (const [i, s] of seen.entries()) {
      expect(s.deletedItems + s.remainingItems).toBeLessThanOrEqual(total);
      if (i > 0) expect(s.deletedItems).toBeGreaterThanOrEqual(seen[i - 1]?.deletedItems ?? 0);
    }
    // No item is left in the type's partition.
    const { queryItemsPage } = await import('../../functions/shared/data/dynadata-item-queries');
    const left = await queryItemsPage(owner.companyId, 'logs', { forward: true, limit: 10 });
    expect(left.items).toEqual([]);
    // The items' bytes left the company's database figure with them.
    expect((await readUsage(owner.companyId, new Date(), 'month')).databaseBytes).toBe(bytesBefore);
    // A repeat after the end finds nothing: 404.
    expectProblem(
      await call('DELETE', '/v1/dynadata/types/logs?deleteItems=true', { headers: as(owner) }),
      404,
      'not_found',
    );
  });

  it('refuses to delete a type with items unless asked, then deletes them and the type', async () => {
    await putType(tenant, 'notes', { schema: { type: 'object', properties: { text: { type: 'string' } } } });
    for (const text of ['x', 'y']) expect((await create(tenant, 'notes', { text })).status).toBe(201);
    const refused = await call('DELETE', '/v1/dynadata/types/notes', { headers: as(tenant) });
    expectProblem(refused, 409, 'type_has_items');
    expect(refused.json.itemCount).toBe(2);
    const deleted = await call('DELETE', '/v1/dynadata/types/notes?deleteItems=true', {
      headers: as(tenant),
    });
    expect(deleted.status).toBe(202);
    expect(deleted.json).toEqual({
      deleted: false,
      name: 'notes',
      status: 'deleting',
      deletedItems: 0,
      remainingItems: 2,
    });
    const gone = await eventually(
      () => call('GET', '/v1/dynadata/types/notes', { headers: as(tenant) }),
      (read) => read.status === 404,
    );
    expectProblem(gone, 404, 'not_found');
    // A type without items goes at once.
    await putType(tenant, 'empty', tickets());
    const empty = await call('DELETE', '/v1/dynadata/types/empty', { headers: as(tenant) });
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({
      deleted: true,
      name: 'empty',
      status: 'deleted',
      deletedItems: 0,
      remainingItems: 0,
    });
    // The name is free again, with no items.
    expect((await putType(tenant, 'notes', tickets())).status).toBe(201);
  });
});
