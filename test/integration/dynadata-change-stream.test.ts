import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTenant } from './support';

const { ddb, tableName } = await import('../../functions/shared/data/client');
const { eventPartition, toEventRecord } = await import('../../functions/shared/data/events');
const { getTypeCounter } = await import('../../functions/shared/data/dynadata-type-counters');
const { partitions } = await import('../../functions/shared/data/keys');
const { handler } = await import('../../functions/workers/event-dispatcher/index');

/**
 * The event dispatcher's side of Dynadata change events (`domain/dynadata/change-stream.ts`), fed stream
 * records by hand: a record handled twice raises one event and counts once, a chunk cancelled by a record
 * handled before commits the others, two changes of one item go in two transactions in order, and a
 * bookkeeping write raises nothing.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;

let sequence = 0;
const image = (t: Tenant, type: string, id: string, version: number, data: Record<string, unknown>) => ({
  pk: partitions.dynadataItems(t.companyId, type),
  sk: id,
  entity: 'dd_item',
  _id: id,
  _version: version,
  createdAt: '2026-11-29T10:00:00.000Z',
  updatedAt: new Date(Date.UTC(2026, 10, 29, 10, 0, version)).toISOString(),
  _size: JSON.stringify(data).length,
  data,
  _streamed: true,
});
type Image = ReturnType<typeof image>;
const record = (
  eventID: string,
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  images: { newImage?: Image & Record<string, unknown>; oldImage?: Image & Record<string, unknown> },
): DynamoDBRecord => ({
  eventID,
  eventName,
  dynamodb: {
    SequenceNumber: String(++sequence).padStart(21, '0'),
    ApproximateCreationDateTime: 1_795_000_000,
    Keys: marshall({
      pk: (images.newImage ?? images.oldImage)?.pk,
      sk: (images.newImage ?? images.oldImage)?.sk,
    }) as never,
    ...(images.newImage ? { NewImage: marshall(images.newImage) as never } : {}),
    ...(images.oldImage ? { OldImage: marshall(images.oldImage) as never } : {}),
  },
});
const handle = async (...records: DynamoDBRecord[]) => {
  const answer = await handler({ Records: records });
  expect(answer).toEqual({ batchItemFailures: [] });
};
const eventsOf = async (t: Tenant) =>
  (
    (
      await ddb.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': eventPartition(t.companyId) },
          ConsistentRead: true,
        }),
      )
    ).Items ?? []
  )
    .filter((item) => item.entity === 'event')
    .map(toEventRecord);
const countOf = async (t: Tenant) => {
  const counter = await getTypeCounter(t.companyId, 'contacts');
  return counter && { itemCount: counter.itemCount, bytes: counter.bytes };
};
/** The transactions the dispatcher sends (DynamoDB Local answers them). */
const spyTransactions = () => {
  const sent: TransactWriteCommand[] = [];
  const send = ddb.send.bind(ddb);
  vi.spyOn(ddb, 'send').mockImplementation(((command: unknown) => {
    if (command instanceof TransactWriteCommand) sent.push(command);
    return send(command as never);
  }) as never);
  return sent;
};
const eventTypesOf = (command: TransactWriteCommand) =>
  (command.input.TransactItems ?? []).flatMap((action) =>
    action.Put?.Item?.entity === 'event' ? [String(action.Put.Item.type)] : [],
  );

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Dynadata change events from the stream', () => {
  it('raises one event and counts once for a record handled twice (the missing counter created first)', async () => {
    const t = await createTenant();
    expect(await countOf(t)).toBeUndefined();
    const created = record('rec-once', 'INSERT', {
      newImage: image(t, 'contacts', 'c1', 1, { name: 'Ada' }),
    });
    await handle(created);
    await handle(created);
    const events = await eventsOf(t);
    expect(events.map((e) => [e.type, e.resourceId])).toEqual([['dynadata.item.created', 'dd:contacts:c1']]);
    expect(events[0]?.createdAt).toBe('2026-11-29T10:00:01.000Z');
    expect(await countOf(t)).toEqual({ itemCount: 1, bytes: 14 });
  });

  it('sends a chunk again without the records handled before: the others are written and counted once', async () => {
    const t = await createTenant();
    const first = record('rec-a', 'INSERT', { newImage: image(t, 'contacts', 'a', 1, { name: 'A' }) });
    await handle(first);
    const sent = spyTransactions();
    await handle(
      first,
      record('rec-b', 'INSERT', { newImage: image(t, 'contacts', 'b', 1, { name: 'B' }) }),
      record('rec-c', 'INSERT', { newImage: image(t, 'contacts', 'c', 1, { name: 'C' }) }),
    );
    // One transaction of the three, cancelled (the first's event exists), then one of the other two.
    expect(sent.map(eventTypesOf).map((types) => types.length)).toEqual([3, 2]);
    expect((await eventsOf(t)).map((e) => e.resourceId).sort()).toEqual([
      'dd:contacts:a',
      'dd:contacts:b',
      'dd:contacts:c',
    ]);
    expect((await countOf(t))?.itemCount).toBe(3);
  });

  it('writes two changes of one item in two transactions, in order; a write that keeps the version raises none', async () => {
    const t = await createTenant();
    const v1 = image(t, 'contacts', 'x', 1, { name: 'X' });
    const v2 = image(t, 'contacts', 'x', 2, { name: 'Xavier' });
    // The type's counter made by a first change.
    await handle(record('rec-z1', 'INSERT', { newImage: image(t, 'contacts', 'z', 1, { name: 'Z' }) }));
    const sent = spyTransactions();
    await handle(
      record('rec-x1', 'INSERT', { newImage: v1 }),
      record('rec-y1', 'INSERT', { newImage: image(t, 'contacts', 'y', 1, { name: 'Y' }) }),
      record('rec-x2', 'MODIFY', { oldImage: v1, newImage: v2 }),
      // The mark before a delete (the hop), which leaves the version: no event.
      record('rec-x3', 'MODIFY', { oldImage: v2, newImage: { ...v2, _hop: 2 } }),
      record('rec-x4', 'REMOVE', { oldImage: { ...v2, _hop: 2 } }),
    );
    expect(sent.map(eventTypesOf)).toEqual([
      ['dynadata.item.created', 'dynadata.item.created'],
      ['dynadata.item.updated'],
      ['dynadata.item.deleted'],
    ]);
    const events = (await eventsOf(t)).filter((e) => e.resourceId === 'dd:contacts:x');
    // Ids in the order of the changes (the events partition lists by id).
    expect(events.map((e) => [e.type, e.hop ?? 0])).toEqual([
      ['dynadata.item.created', 0],
      ['dynadata.item.updated', 0],
      ['dynadata.item.deleted', 2],
    ]);
    expect(events[1]?.data).toMatchObject({ changedFields: ['name'] });
    expect((await countOf(t))?.itemCount).toBe(2);
  });

  it("puts a custom type's event alone, once, and none for a swept item or another company's", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const sent = spyTransactions();
    const created = record('rec-o1', 'INSERT', { newImage: image(t, 'orders', 'o1', 1, { total: 1 }) });
    await handle(
      created,
      created,
      record('rec-o2', 'REMOVE', {
        oldImage: { ...image(t, 'orders', 'o2', 3, { total: 2 }), _quiet: true },
      }),
      // Neither messages nor log entries raise change events.
      record('rec-m1', 'INSERT', { newImage: image(t, 'messages', 'm1', 1, { status: 'queued' }) }),
    );
    expect(sent).toEqual([]);
    expect((await eventsOf(t)).map((e) => [e.type, e.resourceId])).toEqual([
      ['dynadata.item.created', 'dd:orders:o1'],
    ]);
    expect(await eventsOf(other)).toEqual([]);
    expect(await countOf(t)).toBeUndefined();
  });
});
