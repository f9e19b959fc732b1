import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

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

  it('keeps a type being deleted read-only, its items and its definition, until the last item is gone', async () => {
    await putType(tenant, 'logs', { schema: { type: 'object', properties: { text: { type: 'string' } } } });
    for (const text of ['x', 'y', 'z']) expect((await create(tenant, 'logs', { text })).status).toBe(201);
    // One request's share of the deletion, cut to one item: the type stays `deleting`.
    const { deleteType } = await import('../../functions/shared/domain/dynadata/type-admin');
    await deleteType(tenant.companyId, 'logs', { deleteItems: true, maxItems: 1 }, new Date());
    const read = await call('GET', '/v1/dynadata/types/logs', { headers: as(tenant) });
    expect(read.json.type).toMatchObject({ status: 'deleting', deletedItems: 1 });
    expectProblem(await create(tenant, 'logs', { text: 'late' }), 409, 'type_deleting');
    expectProblem(await putType(tenant, 'logs', tickets()), 409, 'type_deleting');
    const rest = await call('DELETE', '/v1/dynadata/types/logs?deleteItems=true', { headers: as(tenant) });
    expect(rest.json).toMatchObject({ status: 'deleted' });
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
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ name: 'notes', status: 'deleted', deletedItems: 2 });
    expectProblem(await call('GET', '/v1/dynadata/types/notes', { headers: as(tenant) }), 404, 'not_found');
    // The name is free again, with no items.
    expect((await putType(tenant, 'notes', tickets())).status).toBe(201);
  });
});
