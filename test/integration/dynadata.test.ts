import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { storeObjectRecord } from './stored-object-fixture';
import { call, createTenant, expectProblem, runAdmin } from './support';

const { countItems } = await import('../../functions/shared/domain/dynadata/count');
const { encodeCursor } = await import('../../functions/shared/domain/dynadata/list-cursor');
const { readUsage } = await import('../../functions/shared/data/usage-meters');
const storeObject = storeObjectRecord;

const dataDir = inject('stack').dataDir;

const admin = runAdmin;

const schemaFile = (schema: unknown): string => {
  const dir = mkdtempSync(join(tmpdir(), 'dd-schema-'));
  const file = join(dir, 'schema.json');
  writeFileSync(file, JSON.stringify(schema));
  return file;
};

const ORDER_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 100 },
    amount: { type: 'number', minimum: 0 },
    status: { enum: ['open', 'paid', 'void'] },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
    invoice: { 'x-document': true },
  },
  required: ['title', 'amount'],
  additionalProperties: false,
  'x-indexed': ['amount'],
};

const tenantWithOrders = async () => {
  const tenant = await createTenant();
  const put = await admin(
    'types',
    'put',
    '--company',
    tenant.companyId,
    '--name',
    'orders',
    '--file',
    schemaFile(ORDER_SCHEMA),
    '--json',
  );
  expect(put.code, put.err).toBe(0);
  const headers = { 'x-api-key': tenant.apiKey };
  return { ...tenant, headers };
};

describe('Dynadata types and schemas', () => {
  it('lists built-in and custom types with their functions', async () => {
    const t = await tenantWithOrders();
    const res = await call('GET', '/v1/dynadata/types', { headers: t.headers });
    expect(res.status).toBe(200);
    const types = res.json.types as {
      name: string;
      builtIn: boolean;
      writable: boolean;
      functions: string[];
    }[];
    expect(types.map((x) => x.name)).toEqual(['contacts', 'messages', 'log_entries', 'orders']);
    expect(types.find((x) => x.name === 'log_entries')).toMatchObject({ builtIn: true, writable: false });
    expect(types.find((x) => x.name === 'contacts')?.functions).toEqual(['count', 'sendMessage']);
    expect(types.find((x) => x.name === 'orders')).toMatchObject({ builtIn: false, writable: true });
  });

  it('refuses an x-indexed change while the type has items, and indexed strings without a bounded maxLength', async () => {
    const t = await tenantWithOrders();
    const put = (schema: unknown) =>
      admin('types', 'put', '--company', t.companyId, '--name', 'orders', '--file', schemaFile(schema));
    const byTitle = { ...ORDER_SCHEMA, 'x-indexed': ['title'] };
    // No items yet: the index may change.
    expect((await put(byTitle)).code).toBe(0);
    const created = await call('POST', '/v1/dynadata/type/orders/create', {
      headers: t.headers,
      body: { title: 'first', amount: 5 },
    });
    expect(created.status).toBe(201);
    const refused = await put(ORDER_SCHEMA);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('x-indexed cannot change');
    expect(refused.err).toContain('1 items');
    const sorted = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: t.headers,
      body: { sort: { field: 'title', order: 'asc' } },
    });
    expect((sorted.json.items as unknown[]).length).toBe(1);
    // The same index with another schema change is fine.
    expect((await put({ ...byTitle, description: 'Orders' })).code).toBe(0);
    const unbounded = await admin(
      'types',
      'put',
      '--company',
      t.companyId,
      '--name',
      'notes',
      '--file',
      schemaFile({ type: 'object', properties: { key: { type: 'string' } }, 'x-indexed': ['key'] }),
    );
    expect(unbounded.code).toBe(1);
    expect(unbounded.err).toContain('/properties/key/maxLength');
    const tooLong = await admin(
      'types',
      'put',
      '--company',
      t.companyId,
      '--name',
      'notes',
      '--file',
      schemaFile({
        type: 'object',
        properties: { key: { type: 'string', maxLength: 901 } },
        'x-indexed': ['key'],
      }),
    );
    expect(tooLong.code).toBe(1);
  });

  it('refuses bad type names, reserved names and unsupported schema keywords in the CLI', async () => {
    const t = await createTenant();
    const file = schemaFile(ORDER_SCHEMA);
    expect(
      (await admin('types', 'put', '--company', t.companyId, '--name', 'Bad-Name', '--file', file)).code,
    ).toBe(1);
    expect(
      (await admin('types', 'put', '--company', t.companyId, '--name', 'contacts', '--file', file)).code,
    ).toBe(1);
    const bad = await admin(
      'types',
      'put',
      '--company',
      t.companyId,
      '--name',
      'things',
      '--file',
      schemaFile({ type: 'object', properties: { a: { type: 'string', oneOf: [] } } }),
    );
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('/properties/a/oneOf');
  });

  it('returns the JSON Schema and the zod source; an unknown library is a 404 naming the supported ones', async () => {
    const t = await tenantWithOrders();
    const schema = await call('GET', '/v1/dynadata/type/orders/schema', { headers: t.headers });
    expect(schema.status).toBe(200);
    expect(schema.json).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      'x-indexed': ['amount'],
    });
    expect((schema.json.properties as Record<string, unknown>).invoice).toMatchObject({
      'x-document': true,
      required: ['fullPath'],
    });
    const zod = await call('GET', '/v1/dynadata/type/orders/schema/zod', { headers: t.headers });
    expect(zod.status).toBe(200);
    expect(zod.json.source).toContain("import { z } from 'zod';");
    const yup = await call('GET', '/v1/dynadata/type/orders/schema/yup', { headers: t.headers });
    expectProblem(yup, 404, 'not_found');
    expect(yup.json.supportedLibraries).toEqual(['zod']);
    expectProblem(
      await call('GET', '/v1/dynadata/type/nope/schema', { headers: t.headers }),
      404,
      'not_found',
    );
  });
});

describe('Dynadata items', () => {
  it('creates, reads, updates with _version, deletes, and keeps database bytes', async () => {
    const t = await tenantWithOrders();
    const before = await readUsage(t.companyId, new Date(), 'month');
    const created = await call('POST', '/v1/dynadata/type/orders/create', {
      headers: t.headers,
      body: { title: 'First', amount: 10, status: 'open' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ title: 'First', amount: 10, _version: 1 });
    const id = created.json._id as string;
    expect(id).toMatch(/^[0-9a-z]{26}$/);
    const afterCreate = await readUsage(t.companyId, new Date(), 'month');
    expect(afterCreate.databaseBytes).toBeGreaterThan(before.databaseBytes);

    const got = await call('GET', `/v1/dynadata/type/orders/item/${id}`, { headers: t.headers });
    expect(got.json).toEqual(created.json);

    const updated = await call('POST', '/v1/dynadata/type/orders/update', {
      headers: t.headers,
      body: { _id: id, _version: 1, status: 'paid', tags: ['a'] },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ title: 'First', status: 'paid', tags: ['a'], _version: 2 });

    const stale = await call('POST', '/v1/dynadata/type/orders/update', {
      headers: t.headers,
      body: { _id: id, _version: 1, status: 'void' },
    });
    expectProblem(stale, 409, 'conflict');

    const removed = await call('POST', '/v1/dynadata/type/orders/update', {
      headers: t.headers,
      body: { _id: id, tags: null },
    });
    expect(removed.json.tags).toBeUndefined();

    const del = await call('DELETE', `/v1/dynadata/type/orders/item/${id}`, { headers: t.headers });
    expect(del.json).toEqual({ deleted: true, _id: id });
    expectProblem(
      await call('GET', `/v1/dynadata/type/orders/item/${id}`, { headers: t.headers }),
      404,
      'not_found',
    );
    expectProblem(
      await call('DELETE', `/v1/dynadata/type/orders/item/${id}`, { headers: t.headers }),
      404,
      'not_found',
    );
    const afterDelete = await readUsage(t.companyId, new Date(), 'month');
    expect(afterDelete.databaseBytes).toBe(before.databaseBytes);
  });

  it('lists every violation with a pointer, on create, update and validate', async () => {
    const t = await tenantWithOrders();
    const bad = {
      title: '',
      amount: -1,
      status: 'lost',
      email: 'not-an-email',
      extra: 1,
      tags: ['a', 'b', 'c', 'd'],
    };
    const res = await call('POST', '/v1/dynadata/type/orders/create', { headers: t.headers, body: bad });
    expectProblem(res, 400, 'validation_failed');
    const pointers = (res.json.errors as { pointer: string }[]).map((e) => e.pointer).sort();
    expect(pointers).toEqual(
      ['/body/amount', '/body/email', '/body/extra', '/body/status', '/body/tags', '/body/title'].sort(),
    );
    const validated = await call('POST', '/v1/dynadata/type/orders/validate', {
      headers: t.headers,
      body: bad,
    });
    expect(validated.status).toBe(200);
    expect(validated.json.valid).toBe(false);
    expect((validated.json.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual(pointers);
    const ok = await call('POST', '/v1/dynadata/type/orders/validate', {
      headers: t.headers,
      body: { title: 'x', amount: 1 },
    });
    expect(ok.json).toEqual({ valid: true, errors: [] });
    const missing = await call('POST', '/v1/dynadata/type/orders/create', { headers: t.headers, body: {} });
    expect((missing.json.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/body/amount',
      '/body/title',
    ]);
    const created = await call('POST', '/v1/dynadata/type/orders/create', {
      headers: t.headers,
      body: { title: 'x', amount: 1 },
    });
    const badUpdate = await call('POST', '/v1/dynadata/type/orders/update', {
      headers: t.headers,
      body: { _id: created.json._id, amount: 'ten' },
    });
    expectProblem(badUpdate, 400, 'validation_failed');
    expect(badUpdate.json.errors).toEqual([{ pointer: '/body/amount', message: expect.any(String) }]);
    const serverSet = await call('POST', '/v1/dynadata/type/orders/create', {
      headers: t.headers,
      body: { _id: 'mine', title: 'x', amount: 1 },
    });
    expectProblem(serverSet, 400, 'validation_failed');
  });

  it('refuses an item above the published maximum size with 413', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const res = await call('POST', '/v1/dynadata/type/contacts/create', {
      headers,
      body: { name: 'Big', attributes: { blob: 'x'.repeat(310_000) } },
    });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('checks document fields: foreign and missing files are the same 400, malformed paths point at fullPath', async () => {
    const t = await tenantWithOrders();
    const other = await createTenant();
    const theirs = `companies/${other.companyId}/invoice.pdf`;
    await storeObject(other.companyId, theirs);
    const create = (invoice: unknown) =>
      call('POST', '/v1/dynadata/type/orders/create', {
        headers: t.headers,
        body: { title: 'x', amount: 1, invoice },
      });
    const foreign = await create({ fullPath: theirs });
    expectProblem(foreign, 400, 'invalid_storage_reference');
    expect(foreign.json.errors).toEqual([{ pointer: '/body/invoice', message: expect.any(String) }]);
    const missing = await create({ fullPath: `companies/${t.companyId}/none.pdf` });
    expectProblem(missing, 400, 'invalid_storage_reference');
    expect(missing.json.errors).toEqual(foreign.json.errors);
    const traversal = await create({
      fullPath: `companies/${t.companyId}/../${other.companyId}/invoice.pdf`,
    });
    expectProblem(traversal, 400, 'invalid_storage_reference');
    expect(traversal.json.errors).toEqual([
      { pointer: '/body/invoice/fullPath', message: expect.any(String) },
    ]);
    const mine = `companies/${t.companyId}/invoices/1.pdf`;
    await storeObject(t.companyId, mine);
    const own = await create({ fullPath: mine });
    expect(own.status, JSON.stringify(own.json)).toBe(201);
    expect(own.json.invoice).toEqual({ fullPath: mine });
  });

  it('answers 404 for unknown types and items', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    expectProblem(
      await call('POST', '/v1/dynadata/type/orders/create', { headers, body: { a: 1 } }),
      404,
      'not_found',
    );
    expectProblem(await call('GET', '/v1/dynadata/type/contacts/item/01abc', { headers }), 404, 'not_found');
    expectProblem(
      await call('POST', '/v1/dynadata/type/contacts/update', { headers, body: { _id: '01abc', name: 'x' } }),
      404,
      'not_found',
    );
  });

  it('types delete refuses while items exist, unless --force, which also releases their bytes', async () => {
    const t = await tenantWithOrders();
    await call('POST', '/v1/dynadata/type/orders/create', {
      headers: t.headers,
      body: { title: 'x', amount: 1 },
    });
    const refused = await admin('types', 'delete', '--company', t.companyId, '--name', 'orders');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('1 items');
    const forced = await admin(
      'types',
      'delete',
      '--company',
      t.companyId,
      '--name',
      'orders',
      '--force',
      '--json',
    );
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.out)).toEqual({
      name: 'orders',
      status: 'deleted',
      deletedItems: 1,
      remainingItems: 0,
    });
    expect((await readUsage(t.companyId, new Date(), 'month')).databaseBytes).toBe(0);
  });
});

describe('Dynadata list', () => {
  const seed = async (t: Awaited<ReturnType<typeof tenantWithOrders>>, n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await call('POST', '/v1/dynadata/type/orders/create', {
        headers: t.headers,
        body: { title: `order ${i}`, amount: (i * 7) % 10, status: i % 2 === 0 ? 'open' : 'paid' },
      });
      ids.push(res.json._id as string);
    }
    return ids;
  };

  it('pages newest first by default, oldest first on request, and ends with a null cursor', async () => {
    const t = await tenantWithOrders();
    const ids = await seed(t, 7);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', '/v1/dynadata/type/orders/list', {
        headers: t.headers,
        body: { limit: 3, ...(cursor ? { cursor } : {}) },
      });
      expect(res.status).toBe(200);
      seen.push(...(res.json.items as { _id: string }[]).map((x) => x._id));
      cursor = (res.json.nextCursor as string | null) ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual([...ids].reverse());
    const exact = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: t.headers,
      body: { limit: 7 },
    });
    expect(exact.json.items).toHaveLength(7);
    expect(exact.json.nextCursor).toBeNull();
    const asc = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: t.headers,
      body: { sort: { field: '_id', order: 'asc' }, limit: 2 },
    });
    expect((asc.json.items as { _id: string }[]).map((x) => x._id)).toEqual(ids.slice(0, 2));
  });

  it('filters with eq, in, gte, exists and prefix, and sorts by the indexed field', async () => {
    const t = await tenantWithOrders();
    await seed(t, 10);
    const list = async (body: unknown) => {
      const res = await call('POST', '/v1/dynadata/type/orders/list', { headers: t.headers, body });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.items as { title: string; amount: number; status: string }[];
    };
    expect((await list({ filter: { status: 'paid' }, limit: 100 })).every((x) => x.status === 'paid')).toBe(
      true,
    );
    expect(await list({ filter: { status: 'paid' }, limit: 100 })).toHaveLength(5);
    expect(await list({ filter: { amount: { in: [0, 7, 100] } }, limit: 100 })).toHaveLength(2);
    expect((await list({ filter: { amount: { gte: 5 } }, limit: 100 })).every((x) => x.amount >= 5)).toBe(
      true,
    );
    expect(await list({ filter: { email: { exists: true } } })).toHaveLength(0);
    expect(await list({ filter: { title: { prefix: 'order 1' } } })).toHaveLength(1);
    const sorted = await list({ sort: { field: 'amount', order: 'asc' }, limit: 100 });
    expect(sorted.map((x) => x.amount)).toEqual([...sorted.map((x) => x.amount)].sort((a, b) => a - b));
    expect(sorted).toHaveLength(10);
    const notIndexed = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: t.headers,
      body: { sort: { field: 'title' } },
    });
    expectProblem(notIndexed, 400, 'validation_failed');
    const unknownField = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: t.headers,
      body: { filter: { colour: 'red' } },
    });
    expectProblem(unknownField, 400, 'validation_failed');
    expect(unknownField.json.errors).toEqual([
      { pointer: '/body/filter/colour', message: expect.any(String) },
    ]);
    expectProblem(
      await call('POST', '/v1/dynadata/type/orders/list', { headers: t.headers, body: { limit: 101 } }),
      400,
      'validation_failed',
    );
  });

  it('refuses a cursor of another query or another tenant with 400', async () => {
    const a = await tenantWithOrders();
    const b = await tenantWithOrders();
    await seed(a, 3);
    await seed(b, 3);
    const page = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: a.headers,
      body: { limit: 1 },
    });
    const cursor = page.json.nextCursor as string;
    expect(cursor).toBeTruthy();
    const otherQuery = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: a.headers,
      body: { limit: 1, cursor, filter: { status: 'open' } },
    });
    expectProblem(otherQuery, 400, 'validation_failed');
    const otherTenant = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: b.headers,
      body: { limit: 1, cursor },
    });
    expectProblem(otherTenant, 400, 'validation_failed');
    expect(otherTenant.json.errors).toEqual([{ pointer: '/body/cursor', message: expect.any(String) }]);
    const forged = await call('POST', '/v1/dynadata/type/orders/list', {
      headers: a.headers,
      body: { limit: 1, cursor: `${Buffer.from('{"pk":"x","sk":"y"}').toString('base64url')}.AAAA` },
    });
    expectProblem(forged, 400, 'validation_failed');
  });

  it('refuses a correctly signed cursor whose key names another partition with 400', async () => {
    const a = await tenantWithOrders();
    const b = await tenantWithOrders();
    await seed(b, 2);
    // Signed with the stack's own key, as a leaked or mis-issued cursor would be.
    const key = readFileSync(join(dataDir, 'dynadata-cursor-key'), 'utf8').trim();
    const fingerprint = JSON.stringify([a.companyId, 'orders', null, { field: '_id', order: 'desc' }]);
    const cursor = encodeCursor(key, fingerprint, { pk: `CO#${b.companyId}#DD#orders`, sk: '~' });
    const res = await call('POST', '/v1/dynadata/type/orders/list', { headers: a.headers, body: { cursor } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([{ pointer: '/body/cursor', message: expect.any(String) }]);
    expect(JSON.stringify(res.json)).not.toContain(b.companyId);
  });
});

describe('Dynadata functions', () => {
  it('a filtered count examines a bounded number of items per call and continues with its cursor', async () => {
    const t = await tenantWithOrders();
    for (const status of ['open', 'paid', 'open', 'open', 'paid', 'open'])
      await call('POST', '/v1/dynadata/type/orders/create', {
        headers: t.headers,
        body: { title: 'x', amount: 1, status },
      });
    const filter = { status: 'open' };
    // The bound, made small in-process against the stack's DynamoDB: every call stops after 2 items.
    let answer = await countItems(t.companyId, 'orders', filter, { maxExamined: 2 });
    let calls = 1;
    const partial = answer;
    while (!answer.complete && answer.cursor) {
      expect(answer.count).toBeLessThanOrEqual(4);
      answer = await countItems(t.companyId, 'orders', filter, { maxExamined: 2, cursor: answer.cursor });
      calls++;
    }
    expect(answer).toEqual({ count: 4, complete: true, cursor: null });
    expect(calls).toBeGreaterThanOrEqual(3);
    expect(partial.complete).toBe(false);
    // The public function continues from the same cursor; the cursor is bound to the filter and the tenant.
    const resumed = await call('POST', '/v1/dynadata/type/orders/executeFunction/count', {
      headers: t.headers,
      body: { filter, cursor: partial.cursor },
    });
    expect(resumed.json).toEqual({ count: 4, complete: true, cursor: null });
    const otherFilter = await call('POST', '/v1/dynadata/type/orders/executeFunction/count', {
      headers: t.headers,
      body: { filter: { status: 'paid' }, cursor: partial.cursor },
    });
    expectProblem(otherFilter, 400, 'validation_failed');
    expect(otherFilter.json.errors).toEqual([{ pointer: '/body/cursor', message: expect.any(String) }]);
    const other = await tenantWithOrders();
    expectProblem(
      await call('POST', '/v1/dynadata/type/orders/executeFunction/count', {
        headers: other.headers,
        body: { filter, cursor: partial.cursor },
      }),
      400,
      'validation_failed',
    );
  });

  it('count honours a filter; unknown functions are 404 and bad input 400 with pointers', async () => {
    const t = await tenantWithOrders();
    for (const status of ['open', 'open', 'paid'])
      await call('POST', '/v1/dynadata/type/orders/create', {
        headers: t.headers,
        body: { title: 'x', amount: 1, status },
      });
    const all = await call('POST', '/v1/dynadata/type/orders/executeFunction/count', {
      headers: t.headers,
      body: {},
    });
    expect(all.json).toEqual({ count: 3, complete: true, cursor: null });
    const open = await call('POST', '/v1/dynadata/type/orders/executeFunction/count', {
      headers: t.headers,
      body: { filter: { status: 'open' } },
    });
    expect(open.json).toEqual({ count: 2, complete: true, cursor: null });
    expectProblem(
      await call('POST', '/v1/dynadata/type/orders/executeFunction/explode', {
        headers: t.headers,
        body: {},
      }),
      404,
      'not_found',
    );
    const bad = await call('POST', '/v1/dynadata/type/orders/executeFunction/count', {
      headers: t.headers,
      body: { filter: { status: { near: 1 } } },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect((bad.json.errors as { pointer: string }[])[0]?.pointer).toMatch(/^\/body\/filter\/status/);
    expectProblem(
      await call('POST', '/v1/dynadata/type/orders/item/nope/executeFunction/sendMessage', {
        headers: t.headers,
        body: {},
      }),
      404,
      'not_found',
    );
  });

  it('requires dynadata:execute', async () => {
    const t = await createTenant({ scopes: ['dynadata:read', 'dynadata:write'] });
    expectProblem(
      await call('POST', '/v1/dynadata/type/contacts/executeFunction/count', {
        headers: { 'x-api-key': t.apiKey },
        body: {},
      }),
      403,
      'insufficient_scope',
    );
  });
});
