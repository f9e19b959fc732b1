import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';
import { eventually } from './webhook-receiver';

/**
 * Bulk writes and upsert of Dynadata items: `POST /v1/dynadata/type/{type}/batch` (each operation on its own,
 * or all or nothing) and `PUT /v1/dynadata/type/{type}/item/{_id}` with a caller-chosen id.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
type Result = {
  op: string;
  status: number;
  _id: string | null;
  _version: number | null;
  problem: null | Record<string, unknown>;
};

let owner: Tenant;
let other: Tenant;
const as = (t: Tenant, more: Record<string, string> = {}) => ({ 'x-api-key': t.apiKey, ...more });
const batch = (t: Tenant, body: unknown, more: Record<string, string> = {}) =>
  call('POST', '/v1/dynadata/type/orders/batch', { headers: as(t, more), body });
const put = (t: Tenant, id: string, body: unknown, more: Record<string, string> = {}) =>
  call('PUT', `/v1/dynadata/type/orders/item/${id}`, { headers: as(t, more), body });
const count = async (t: Tenant) =>
  (
    (await call('POST', '/v1/dynadata/type/orders/list', { headers: as(t), body: { limit: 100 } })).json
      .items as unknown[]
  ).length;

beforeAll(async () => {
  owner = await createTenant({ plan: 'starter' });
  other = await createTenant({ plan: 'starter' });
  for (const t of [owner, other]) {
    const created = await call('PUT', '/v1/dynadata/types/orders', {
      headers: as(t),
      body: {
        description: 'Orders',
        schema: { type: 'object', properties: { total: { type: 'number' }, note: { type: 'string' } } },
      },
    });
    expect(created.status).toBe(201);
  }
});

describe('PUT /v1/dynadata/type/{type}/item/{_id}', () => {
  it('creates with the caller’s id (201), replaces the whole item (200), and honours If-None-Match and If-Match', async () => {
    const created = await put(owner, 'crm-1', { total: 5, note: 'a' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ _id: 'crm-1', _version: 1, total: 5, note: 'a' });
    const tag = created.headers.get('etag');
    expect(tag).toBeTruthy();
    const replaced = await put(owner, 'crm-1', { total: 6 }, { 'if-match': tag ?? '' });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ _id: 'crm-1', _version: 2, total: 6 });
    expect(replaced.json).not.toHaveProperty('note');
    expect(replaced.json.createdAt).toBe(created.json.createdAt);
    // Create only, on an existing id: 412, nothing written.
    expectProblem(
      await put(owner, 'crm-1', { total: 7 }, { 'if-none-match': '*' }),
      412,
      'precondition_failed',
    );
    // Replace only with the old tag, or on an id that does not exist: 412.
    expectProblem(
      await put(owner, 'crm-1', { total: 8 }, { 'if-match': tag ?? '' }),
      412,
      'precondition_failed',
    );
    expectProblem(
      await put(owner, 'crm-none', { total: 8 }, { 'if-match': tag ?? '' }),
      412,
      'precondition_failed',
    );
    expect((await put(owner, 'crm-2', { total: 1 }, { 'if-none-match': '*' })).status).toBe(201);
    const read = await call('GET', '/v1/dynadata/type/orders/item/crm-1', { headers: as(owner) });
    expect(read.json).toMatchObject({ _version: 2, total: 6 });
    // A replay of the same PUT leaves one item, one version further.
    expect((await put(owner, 'crm-2', { total: 1 })).json).toMatchObject({ _version: 2, total: 1 });
  });

  it('refuses a bad id, a mismatched _id, a stale _version and a bad If-None-Match with pointers; another company sees nothing', async () => {
    expectProblem(await put(owner, 'bad.id', { total: 1 }), 400, 'validation_failed');
    const mismatch = await put(owner, 'crm-3', { _id: 'crm-4', total: 1 });
    expectProblem(mismatch, 400, 'validation_failed');
    expect(mismatch.json.errors).toEqual([expect.objectContaining({ pointer: '/body/_id' })]);
    expectProblem(await put(owner, 'crm-1', { _version: 1, total: 1 }), 409, 'conflict');
    const noneMatch = await put(owner, 'crm-5', { total: 1 }, { 'if-none-match': '"abc"' });
    expectProblem(noneMatch, 400, 'validation_failed');
    expect(noneMatch.json.errors).toEqual([expect.objectContaining({ pointer: '/headers/if-none-match' })]);
    expectProblem(await put(owner, 'crm-6', { total: 'x' }), 400, 'validation_failed');
    expectProblem(
      await call('GET', '/v1/dynadata/type/orders/item/crm-1', { headers: as(other) }),
      404,
      'not_found',
    );
    expectProblem(
      await call('PUT', '/v1/dynadata/type/messages/item/m-1', { headers: as(owner), body: {} }),
      403,
      'forbidden',
    );
  });
});

describe('POST /v1/dynadata/type/{type}/batch', () => {
  it('answers one result per operation for 100 mixed operations, refused ones with their problem', async () => {
    const seeded = await batch(owner, {
      operations: Array.from({ length: 10 }, (_, i) => ({
        op: 'upsert',
        _id: `seed-${i}`,
        item: { total: i },
      })),
    });
    expect(seeded.status).toBe(200);
    expect(seeded.json).toMatchObject({ atomic: false, written: 10, failed: 0 });
    const operations = [
      ...Array.from({ length: 60 }, (_, i) => ({ op: 'create', item: { total: i } })),
      ...Array.from({ length: 10 }, (_, i) => ({
        op: 'update',
        item: { _id: `seed-${i}`, note: 'updated' },
      })),
      ...Array.from({ length: 20 }, (_, i) => ({ op: 'upsert', _id: `new-${i}`, item: { total: i } })),
      ...Array.from({ length: 5 }, (_, i) => ({ op: 'delete', _id: `seed-${i}` })),
      { op: 'create', item: { total: 'not a number' } },
      { op: 'update', item: { _id: 'missing', total: 1 } },
      { op: 'delete', _id: 'seed-9', _version: 7 },
      { op: 'upsert', _id: 'seed-8', item: { total: 1 }, onlyIf: 'absent' },
      { op: 'delete', _id: 'seed-0' },
    ];
    expect(operations).toHaveLength(100);
    const before = await count(owner);
    const answered = await batch(owner, { operations });
    expect(answered.status).toBe(200);
    const results = answered.json.results as Result[];
    expect(results).toHaveLength(100);
    expect(answered.json).toMatchObject({ written: 95, failed: 5 });
    expect(results.slice(0, 60).every((r) => r.status === 201 && r._version === 1)).toBe(true);
    expect(results.slice(60, 70).every((r) => r.status === 200 && r._version === 2)).toBe(true);
    expect(results.slice(70, 90).every((r) => r.status === 201)).toBe(true);
    expect(results.slice(90, 95).every((r) => r.status === 200 && r.problem === null)).toBe(true);
    expect(results.slice(95).map((r) => [r.status, r.problem?.code])).toEqual([
      [400, 'validation_failed'],
      [404, 'not_found'],
      [409, 'conflict'],
      [412, 'precondition_failed'],
      [404, 'not_found'],
    ]);
    expect(results[95]?.problem).toMatchObject({
      operation: 95,
      errors: [expect.objectContaining({ pointer: '/body/operations/95/item/total' })],
    });
    expect(await count(owner)).toBe(Math.min(100, before + 60 + 20 - 5));
  });

  it('writes nothing of an atomic batch with one bad operation, and all of a good one', async () => {
    const before = await count(owner);
    const refused = await batch(owner, {
      atomic: true,
      operations: [
        { op: 'create', item: { total: 1 } },
        { op: 'upsert', _id: 'atomic-1', item: { total: 2 } },
        { op: 'update', item: { _id: 'seed-9', total: 'bad' } },
      ],
    });
    expectProblem(refused, 400, 'validation_failed');
    expect(refused.json).toMatchObject({ operation: 2 });
    expect(refused.json.errors).toEqual([
      expect.objectContaining({ pointer: '/body/operations/2/item/total' }),
    ]);
    expect(await count(owner)).toBe(before);
    expectProblem(
      await call('GET', '/v1/dynadata/type/orders/item/atomic-1', { headers: as(owner) }),
      404,
      'not_found',
    );
    const twice = await batch(owner, {
      atomic: true,
      operations: [
        { op: 'upsert', _id: 'atomic-2', item: { total: 1 } },
        { op: 'delete', _id: 'atomic-2' },
      ],
    });
    expectProblem(twice, 400, 'validation_failed');
    // The single routes' checks hold in an atomic batch too: a caller id that PUT refuses, a server time.
    const badId = await batch(owner, {
      atomic: true,
      operations: [
        { op: 'upsert', _id: 'bad.id', item: { total: 1 } },
        { op: 'update', item: { _id: 'seed-9', updatedAt: '2026-01-01T00:00:00.000Z' } },
      ],
    });
    expectProblem(badId, 400, 'validation_failed');
    expect(badId.json.errors).toEqual([expect.objectContaining({ pointer: '/body/operations/0/_id' })]);
    const serverTime = await batch(owner, {
      atomic: true,
      operations: [{ op: 'update', item: { _id: 'seed-9', updatedAt: '2026-01-01T00:00:00.000Z' } }],
    });
    expect(serverTime.json.errors).toEqual([
      expect.objectContaining({ pointer: '/body/operations/0/item/updatedAt' }),
    ]);
    const tooMany = await batch(owner, {
      atomic: true,
      operations: Array.from({ length: 50 }, () => ({ op: 'create', item: {} })),
    });
    expectProblem(tooMany, 400, 'validation_failed');

    const written = await batch(owner, {
      atomic: true,
      operations: [
        { op: 'upsert', _id: 'atomic-3', item: { total: 3 } },
        { op: 'update', item: { _id: 'seed-9', note: 'atomic' } },
        { op: 'delete', _id: 'seed-8' },
      ],
    });
    expect(written.status).toBe(200);
    expect(written.json).toMatchObject({ atomic: true, written: 3, failed: 0 });
    expect((written.json.results as Result[]).map((r) => [r.op, r.status, r._version])).toEqual([
      ['upsert', 201, 1],
      ['update', 200, 3],
      ['delete', 200, 2],
    ]);
    // The delete's event follows from the table's stream (its time is the stream record's second, so it is
    // among the newest deleted events, not necessarily ahead of those of the same second).
    const deleted = async () =>
      (
        (await call('GET', '/v1/events?type=dynadata.item.deleted&limit=10', { headers: as(owner) })).json
          .events as { data: { _id: string } }[]
      ).map((e) => e.data._id);
    expect(await eventually(deleted, (ids) => ids.includes('seed-8'))).toContain('seed-8');
  });

  it('replays a batch with the same Idempotency-Key without writing again, and counts one request per operation', async () => {
    const usage = async () =>
      (
        (await call('GET', '/v1/usage', { headers: as(other) })).json.usage as {
          meters: Record<string, number>;
        }
      ).meters.api_requests ?? 0;
    const body = { operations: Array.from({ length: 5 }, () => ({ op: 'create', item: { total: 1 } })) };
    const before = await usage();
    const first = await batch(other, body, { 'idempotency-key': 'import-1' });
    expect(first.status).toBe(200);
    const again = await batch(other, body, { 'idempotency-key': 'import-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    // The two batches and the usage read: 5 operations for the first, the replay 1, the read itself 1.
    expect((await usage()) - before).toBe(5 + 1 + 1);
    expect(await count(other)).toBe(5);
  });

  it('keeps companies apart: another company’s ids are not found', async () => {
    const answered = await batch(other, { operations: [{ op: 'delete', _id: 'atomic-3' }] });
    expect((answered.json.results as Result[])[0]).toMatchObject({ status: 404 });
    expect((await call('GET', '/v1/dynadata/type/orders/item/atomic-3', { headers: as(owner) })).status).toBe(
      200,
    );
  });
});
