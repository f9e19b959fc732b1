import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { call, createTenant } from './support';

const { ddb, tableName } = await import('../../functions/shared/data/client');
const { partitions } = await import('../../functions/shared/data/keys');
const { typeCounterKey } = await import('../../functions/shared/data/dynadata-type-counters');
const { dynadataTypeKey } = await import('../../functions/shared/data/dynadata-types');
const { usageTotalsKey } = await import('../../functions/shared/data/usage-meters');
const { countItems } = await import('../../functions/shared/domain/dynadata/count');

/**
 * Each Dynadata type's counter item (`docs/decisions/0049-dynadata-type-counter-item.md`): item writes count
 * themselves there (not on the type's record, not on the company's `TOTALS`), `databaseBytes` stays exact,
 * and a type written before counters existed gets its counter from its record on its first write.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
const as = (t: Tenant) => ({ 'x-api-key': t.apiKey });
const get = async (Key: Record<string, unknown>) =>
  (await ddb.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item;
const databaseBytes = async (t: Tenant) => {
  const usage = await call('GET', '/v1/usage', { headers: as(t) });
  expect(usage.status).toBe(200);
  return (usage.json.usage as { databaseBytes: number }).databaseBytes;
};
/** The bytes of the type's items as stored (each item's `_size`). */
const storedBytes = async (t: Tenant, type: string) => {
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partitions.dynadataItems(t.companyId, type) },
      ConsistentRead: true,
    }),
  );
  return Items.reduce((sum, item) => sum + Number(item._size ?? 0), 0);
};
/** DynamoDB's item size: the UTF-8 bytes of every attribute name and value (numbers counted generously). */
const itemSize = (item: Record<string, unknown>) =>
  Object.entries(item).reduce(
    (sum, [name, value]) =>
      sum + Buffer.byteLength(name) + (typeof value === 'number' ? 21 : Buffer.byteLength(String(value))),
    0,
  );
const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 200, description: 'x'.repeat(1500) },
    amount: { type: 'number', description: 'y'.repeat(1500) },
  },
};

/** A type as written before counters: the count on its record, no counter, the bytes in `TOTALS`. */
const legacyItem = async (t: Tenant, type: string, id: string, size: number) => {
  const now = new Date().toISOString();
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        pk: partitions.dynadataItems(t.companyId, type),
        sk: id,
        entity: 'dd_item',
        _id: id,
        _version: 1,
        createdAt: now,
        updatedAt: now,
        data: { title: 'written before counters', amount: 1 },
        _size: size,
      },
    }),
  );
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: usageTotalsKey(t.companyId),
      UpdateExpression: 'ADD databaseBytes :size SET entity = :e',
      ExpressionAttributeValues: { ':size': size, ':e': 'usage_totals' },
    }),
  );
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: dynadataTypeKey(t.companyId, type),
      UpdateExpression: 'ADD itemCount :one SET entity = if_not_exists(entity, :e)',
      ExpressionAttributeValues: { ':one': 1, ':e': 'dd_type' },
    }),
  );
};

describe('Dynadata type counters', () => {
  it('counts item writes on the counter, one write unit, never on the record or TOTALS', async () => {
    const t = await createTenant();
    expect(
      (await call('PUT', '/v1/dynadata/types/orders', { headers: as(t), body: { schema: SCHEMA } })).status,
    ).toBe(201);
    const record = await get(dynadataTypeKey(t.companyId, 'orders'));
    expect(itemSize(record ?? {})).toBeGreaterThan(3000);
    const created = await call('POST', '/v1/dynadata/type/orders/create', {
      headers: as(t),
      body: { title: 'A', amount: 3 },
    });
    expect(created.status).toBe(201);
    // The record is as the type's PUT left it; TOTALS holds nothing of the item.
    expect(await get(dynadataTypeKey(t.companyId, 'orders'))).toEqual(record);
    expect((await get(usageTotalsKey(t.companyId)))?.databaseBytes ?? 0).toBe(0);
    const counter = await get(typeCounterKey(t.companyId, 'orders'));
    expect(counter).toMatchObject({ entity: 'dd_type_counter', itemCount: 1, typeVersion: 1 });
    expect(counter?.bytes).toBe(await storedBytes(t, 'orders'));
    // Even while a change is under check (its token and breaks), the counter stays under 1 KB.
    const withChange = { ...counter, changeToken: 'c'.repeat(64), changeBreaks: 10_000 };
    expect(itemSize(withChange)).toBeLessThan(1024);
    expect((await countItems(t.companyId, 'orders')).count).toBe(1);
  });

  it('keeps databaseBytes exact across writes, items written before counters, and a type deletion', async () => {
    const t = await createTenant();
    const base = await databaseBytes(t);
    expect(
      (await call('PUT', '/v1/dynadata/types/orders', { headers: as(t), body: { schema: SCHEMA } })).status,
    ).toBe(201);
    // The type as it was before counters: two items counted on its record, their bytes in TOTALS.
    await ddb.send(new DeleteCommand({ TableName: tableName(), Key: typeCounterKey(t.companyId, 'orders') }));
    await legacyItem(t, 'orders', '01JAAAAAAAAAAAAAAAAAAAAAA1', 120);
    await legacyItem(t, 'orders', '01JAAAAAAAAAAAAAAAAAAAAAA2', 140);
    expect(await databaseBytes(t)).toBe(base + 260);
    expect((await countItems(t.companyId, 'orders')).count).toBe(2);

    // The first write creates the counter from the record's count (the record keeps no count).
    const created = await call('POST', '/v1/dynadata/type/orders/create', {
      headers: as(t),
      body: { title: 'New', amount: 5 },
    });
    expect(created.status).toBe(201);
    expect(await get(typeCounterKey(t.companyId, 'orders'))).toMatchObject({ itemCount: 3, typeVersion: 1 });
    expect((await get(dynadataTypeKey(t.companyId, 'orders')))?.itemCount).toBeUndefined();
    expect(await databaseBytes(t)).toBe(base + (await storedBytes(t, 'orders')));

    // Updating and deleting items written before: the counter's bytes go below zero, the sum stays exact.
    const updated = await call('POST', '/v1/dynadata/type/orders/update', {
      headers: as(t),
      body: { _id: '01JAAAAAAAAAAAAAAAAAAAAAA1', title: 'changed, and longer than it was before' },
    });
    expect(updated.status).toBe(200);
    expect(await databaseBytes(t)).toBe(base + (await storedBytes(t, 'orders')));
    const removed = await call('DELETE', '/v1/dynadata/type/orders/item/01JAAAAAAAAAAAAAAAAAAAAAA2', {
      headers: as(t),
    });
    expect(removed.status).toBe(200);
    expect(await databaseBytes(t)).toBe(base + (await storedBytes(t, 'orders')));
    expect((await get(typeCounterKey(t.companyId, 'orders')))?.bytes).toBeLessThan(0);
    expect((await countItems(t.companyId, 'orders')).count).toBe(2);

    // Deleting the type with its items: the counter's residue goes into TOTALS with the counter's deletion.
    const deleted = await call('DELETE', '/v1/dynadata/types/orders?deleteItems=true', { headers: as(t) });
    expect(deleted.status).toBe(202);
    for (let i = 0; i < 100; i++) {
      if ((await call('GET', '/v1/dynadata/types/orders', { headers: as(t) })).status === 404) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await get(typeCounterKey(t.companyId, 'orders'))).toBeUndefined();
    expect(await storedBytes(t, 'orders')).toBe(0);
    expect(await databaseBytes(t)).toBe(base);
    expect((await get(usageTotalsKey(t.companyId)))?.databaseBytes ?? 0).toBe(base);
  });

  it('migrates a built-in type counted on its record, and a type change of a type without a counter', async () => {
    const t = await createTenant();
    // `contacts` is counted from the table's stream (decision 0063), which would count an item written here
    // by hand: its record holds a count from before counters, of items the test does not write.
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: dynadataTypeKey(t.companyId, 'contacts'),
        UpdateExpression: 'ADD itemCount :n SET entity = if_not_exists(entity, :e)',
        ExpressionAttributeValues: { ':n': 5, ':e': 'dd_type' },
      }),
    );
    const contact = await call('POST', '/v1/dynadata/type/contacts/create', {
      headers: as(t),
      body: { name: 'Ada' },
    });
    expect(contact.status).toBe(201);
    // The dispatcher finds no counter, makes it from the record (5), then counts the create.
    for (let i = 0; i < 100 && !(await get(typeCounterKey(t.companyId, 'contacts'))); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await get(typeCounterKey(t.companyId, 'contacts'))).toMatchObject({ itemCount: 6 });
    expect(await get(dynadataTypeKey(t.companyId, 'contacts'))).not.toHaveProperty('itemCount');
    expect((await countItems(t.companyId, 'contacts')).count).toBe(6);
    expect(await databaseBytes(t)).toBe(await storedBytes(t, 'contacts'));

    // A custom type without a counter: its next PUT (an additive change) creates it, then bumps both.
    expect(
      (await call('PUT', '/v1/dynadata/types/notes', { headers: as(t), body: { schema: SCHEMA } })).status,
    ).toBe(201);
    await ddb.send(new DeleteCommand({ TableName: tableName(), Key: typeCounterKey(t.companyId, 'notes') }));
    await legacyItem(t, 'notes', '01JAAAAAAAAAAAAAAAAAAAAAA4', 50);
    const more = { ...SCHEMA, properties: { ...SCHEMA.properties, extra: { type: 'string' } } };
    const changed = await call('PUT', '/v1/dynadata/types/notes', { headers: as(t), body: { schema: more } });
    expect(changed.status).toBe(200);
    expect(await get(typeCounterKey(t.companyId, 'notes'))).toMatchObject({ itemCount: 1, typeVersion: 2 });
    expect(await get(dynadataTypeKey(t.companyId, 'notes'))).toMatchObject({ typeVersion: 2 });
    // A delete while it has items is refused with the counter's count.
    const refused = await call('DELETE', '/v1/dynadata/types/notes', { headers: as(t) });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'type_has_items', itemCount: 1 });
  });
});
