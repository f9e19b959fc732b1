import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

/**
 * Richer list queries of Dynadata items: `_and`/`_or`/`_not` groups, `contains`, `fields` projection on list
 * and get, and sorting by each of up to three indexed fields (`docs/decisions/0031-dynadata-sort-indexes.md`).
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
let tenant: Tenant;
let other: Tenant;
const as = (t: Tenant) => ({ 'x-api-key': t.apiKey });
const list = (t: Tenant, body: unknown, type = 'tickets') =>
  call('POST', `/v1/dynadata/type/${type}/list`, { headers: as(t), body });
const ids = (res: { json: Record<string, unknown> }) =>
  (res.json.items as { title: string }[]).map((item) => item.title);

const TICKETS = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 100 },
    status: { enum: ['open', 'closed'] },
    priority: { type: 'integer' },
    owner: { type: 'string', maxLength: 50 },
    due: { type: 'string', maxLength: 30 },
    tags: { type: 'array', items: { type: 'string', maxLength: 20 } },
    open: { type: 'boolean' },
  },
  required: ['title'],
  'x-indexed': ['priority', 'owner', 'due'],
};

const ROWS = [
  { title: 't1', status: 'open', priority: 1, owner: 'ann', due: '2026-03-01', tags: ['spam'] },
  { title: 't2', status: 'open', priority: 3, owner: 'bob', due: '2026-01-15', tags: ['urgent'] },
  { title: 't3', status: 'open', priority: 5, owner: 'cid', due: '2026-02-10', tags: [] },
  { title: 't4', status: 'closed', priority: 4, owner: 'ann', due: '2026-04-01', tags: ['spam', 'x'] },
  { title: 't5', status: 'open', priority: 2, owner: 'dan', tags: ['x'] },
];

beforeAll(async () => {
  tenant = await createTenant();
  other = await createTenant();
  for (const t of [tenant, other]) {
    const put = await call('PUT', '/v1/dynadata/types/tickets', {
      headers: as(t),
      body: { schema: TICKETS },
    });
    expect(put.status, JSON.stringify(put.json)).toBe(201);
  }
  for (const row of ROWS) {
    const res = await call('POST', '/v1/dynadata/type/tickets/create', { headers: as(tenant), body: row });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  }
});

describe('Dynadata list filters: _and, _or, _not, contains', () => {
  it('combines a field condition, an _or group and a _not group', async () => {
    const res = await list(tenant, {
      filter: {
        status: 'open',
        _or: [{ priority: { gte: 3 } }, { owner: 'ann' }],
        _not: { tags: { contains: 'spam' } },
      },
      sort: { field: '_id', order: 'asc' },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(ids(res)).toEqual(['t2', 't3']);
  });

  it('matches substrings of strings and elements of arrays with contains', async () => {
    const substring = await list(tenant, { filter: { due: { contains: '-02-' } } });
    expect(ids(substring)).toEqual(['t3']);
    const element = await list(tenant, {
      filter: { _and: [{ tags: { contains: 'x' } }, { _not: { owner: 'ann' } }] },
    });
    expect(ids(element)).toEqual(['t5']);
  });

  it('the count function takes the same grammar', async () => {
    const res = await call('POST', '/v1/dynadata/type/tickets/executeFunction/count', {
      headers: as(tenant),
      body: { filter: { _or: [{ owner: 'ann' }, { priority: { gt: 4 } }] } },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ count: 3, complete: true });
  });

  it('refuses contains on a field that is neither string nor array, unknown fields and deep nesting', async () => {
    const number = await list(tenant, { filter: { _or: [{ priority: { contains: 3 } }, { owner: 'x' }] } });
    expectProblem(number, 400, 'validation_failed');
    expect(number.json.errors).toEqual([
      { pointer: '/body/filter/_or/0/priority/contains', message: expect.stringContaining('neither') },
    ]);
    const unknown = await list(tenant, { filter: { or: [{ owner: 'ann' }] } });
    expectProblem(unknown, 400, 'validation_failed');
    const deep = await list(tenant, {
      filter: { _not: { _not: { _not: { _not: { owner: 'ann' } } } } },
    });
    expectProblem(deep, 400, 'validation_failed');
    const wide = await list(tenant, {
      filter: {
        _or: Array.from({ length: 20 }, (_, i) => ({ owner: { in: ['a', 'b', 'c', 'd', 'e', `${i}`] } })),
      },
    });
    expectProblem(wide, 400, 'validation_failed');
    expect(wide.json.errors).toEqual([{ pointer: '/body/filter', message: expect.stringContaining('100') }]);
  });
});

describe('Dynadata field projection', () => {
  it('answers only the named fields besides the system fields, on list and get', async () => {
    const res = await list(tenant, { fields: ['title', 'owner'], filter: { title: 't2' } });
    expect(res.status).toBe(200);
    const [item] = res.json.items as Record<string, unknown>[];
    expect(Object.keys(item ?? {}).sort()).toEqual([
      '_id',
      '_version',
      'createdAt',
      'owner',
      'title',
      'updatedAt',
    ]);
    const id = String(item?._id);
    const full = await call('GET', `/v1/dynadata/type/tickets/item/${id}`, { headers: as(tenant) });
    const part = await call('GET', `/v1/dynadata/type/tickets/item/${id}?fields=priority,_id`, {
      headers: as(tenant),
    });
    expect(part.status).toBe(200);
    expect(Object.keys(part.json).sort()).toEqual(['_id', '_version', 'createdAt', 'priority', 'updatedAt']);
    // The tag names the stored item whatever the projection, so If-Match on a write still holds.
    expect(part.headers.get('etag')).toBe(full.headers.get('etag'));
    const updated = await call('POST', '/v1/dynadata/type/tickets/update', {
      headers: { ...as(tenant), 'if-match': String(part.headers.get('etag')) },
      body: { _id: id, owner: 'bob' },
    });
    expect(updated.status, JSON.stringify(updated.json)).toBe(200);
  });

  it('refuses unknown fields with a pointer', async () => {
    const res = await list(tenant, { fields: ['title', 'nope'] });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([{ pointer: '/body/fields/1', message: expect.any(String) }]);
    const get = await call('GET', '/v1/dynadata/type/tickets/item/01ARZ3NDEKTSV4RRFFQ69G5FAV?fields=nope', {
      headers: as(tenant),
    });
    expectProblem(get, 400, 'validation_failed');
    expect(get.json.errors).toEqual([{ pointer: '/query/fields', message: expect.any(String) }]);
  });
});

describe('Dynadata sort indexes', () => {
  it('sorts by the second and third indexed field, and narrows by a range of the sorted field', async () => {
    const byOwner = await list(tenant, { sort: { field: 'owner', order: 'asc' }, fields: ['owner'] });
    expect(byOwner.status, JSON.stringify(byOwner.json)).toBe(200);
    expect((byOwner.json.items as { owner: string }[]).map((i) => i.owner)).toEqual([
      'ann',
      'ann',
      'bob',
      'cid',
      'dan',
    ]);
    // t5 has no due date: it is not part of that order.
    const byDue = await list(tenant, { sort: { field: 'due', order: 'desc' } });
    expect(ids(byDue)).toEqual(['t4', 't1', 't3', 't2']);
    const range = await list(tenant, {
      sort: { field: 'priority', order: 'asc' },
      filter: { priority: { gte: 2, lt: 5 }, _not: { owner: 'dan' } },
    });
    expect(ids(range)).toEqual(['t2', 't4']);
  });

  it('pages an index with a cursor that another sort, query or tenant cannot use', async () => {
    const first = await list(tenant, { sort: { field: 'due', order: 'asc' }, limit: 2 });
    expect(ids(first)).toEqual(['t2', 't3']);
    const cursor = String(first.json.nextCursor);
    const second = await list(tenant, { sort: { field: 'due', order: 'asc' }, limit: 2, cursor });
    expect(ids(second)).toEqual(['t1', 't4']);
    const otherSort = await list(tenant, { sort: { field: 'owner', order: 'asc' }, limit: 2, cursor });
    expectProblem(otherSort, 400, 'validation_failed');
    expect(otherSort.json.errors).toEqual([{ pointer: '/body/cursor', message: expect.any(String) }]);
    const otherTenant = await list(other, { sort: { field: 'due', order: 'asc' }, limit: 2, cursor });
    expectProblem(otherTenant, 400, 'validation_failed');
    expect(otherTenant.json.errors).toEqual([{ pointer: '/body/cursor', message: expect.any(String) }]);
  });

  it('refuses a sort on a field that is not indexed, and a fourth index', async () => {
    const res = await list(tenant, { sort: { field: 'title' } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([
      { pointer: '/body/sort/field', message: expect.stringContaining('due') },
    ]);
    const four = await call('PUT', '/v1/dynadata/types/wide', {
      headers: as(tenant),
      body: {
        schema: {
          type: 'object',
          properties: {
            a: { type: 'number' },
            b: { type: 'number' },
            c: { type: 'number' },
            d: { type: 'number' },
          },
          'x-indexed': ['a', 'b', 'c', 'd'],
        },
      },
    });
    expectProblem(four, 400, 'validation_failed');
  });

  it('refuses a change of x-indexed while the type has items', async () => {
    const res = await call('PUT', '/v1/dynadata/types/tickets', {
      headers: as(tenant),
      body: { schema: { ...TICKETS, 'x-indexed': ['priority', 'owner'] } },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(res.json)).toContain('x-indexed');
  });

  it('another company does not see the items', async () => {
    const res = await list(other, {});
    expect(res.json.items).toEqual([]);
    expectProblem(
      await call('GET', '/v1/dynadata/type/tickets/item/01ARZ3NDEKTSV4RRFFQ69G5FAV', { headers: as(other) }),
      404,
      'not_found',
    );
  });
});
