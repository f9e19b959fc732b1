import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type ItemChange, itemChangeOf } from '../../functions/shared/domain/dynadata/change-events';
import { chunksOf } from '../../functions/shared/domain/dynadata/change-stream';
import { isDispatchable } from '../../functions/workers/event-dispatcher/index';

/** Dynadata change events from the table's stream: which records, which changes, and their chunks. */
const item = (type: string, id: string, version: number, extra: Record<string, unknown> = {}) => ({
  pk: `CO#co_1#DD#${type}`,
  sk: id,
  entity: 'dd_item',
  _id: id,
  _version: version,
  createdAt: '2026-11-29T10:00:00.000Z',
  updatedAt: `2026-11-29T10:00:0${version}.000Z`,
  _size: 20,
  data: { name: `v${version}` },
  _streamed: true,
  ...extra,
});
const change = (itemKey: string, typeName = 'contacts', companyId = 'co_1'): ItemChange => ({
  companyId,
  typeName,
  itemKey,
  delta: { count: 1, bytes: 10 },
});

describe('Dynadata item records', () => {
  it('reach the dispatcher on every write of an item (a delete by its old image), by their raw attributes', () => {
    const record = (
      eventName: DynamoDBRecord['eventName'],
      images: Record<string, unknown>,
    ): DynamoDBRecord => ({
      eventName,
      dynamodb: Object.fromEntries(
        Object.entries(images).map(([k, v]) => [k, marshall(v as object, { removeUndefinedValues: true })]),
      ),
    });
    expect(isDispatchable(record('INSERT', { NewImage: item('contacts', 'a', 1) }))).toBe(true);
    expect(
      isDispatchable(
        record('MODIFY', { NewImage: item('contacts', 'a', 2), OldImage: item('contacts', 'a', 1) }),
      ),
    ).toBe(true);
    expect(isDispatchable(record('REMOVE', { OldImage: item('contacts', 'a', 2) }))).toBe(true);
    // Never marked: a message, and an item written before change events came from the stream.
    expect(
      isDispatchable(record('INSERT', { NewImage: item('messages', 'm', 1, { _streamed: undefined }) })),
    ).toBe(false);
    expect(
      isDispatchable(record('REMOVE', { OldImage: item('contacts', 'a', 2, { _streamed: undefined }) })),
    ).toBe(false);
    expect(isDispatchable(record('REMOVE', { OldImage: { entity: 'event' } }))).toBe(false);
    expect(isDispatchable(record('MODIFY', { NewImage: { entity: 'event' } }))).toBe(false);
    expect(isDispatchable(record('INSERT', { NewImage: { entity: 'dd_thread_entry' } }))).toBe(false);
  });

  it('make the change events of the types that raise them, with the hop of the write', () => {
    const created = itemChangeOf({
      eventName: 'INSERT',
      newImage: item('orders', 'o1', 1, { _hop: 2 }),
      recordId: 'r1',
    });
    expect(created).toMatchObject({
      companyId: 'co_1',
      typeName: 'orders',
      delta: { count: 1, bytes: 20 },
      event: {
        type: 'dynadata.item.created',
        resourceId: 'dd:orders:o1',
        hop: 2,
        data: {
          type: 'orders',
          _id: 'o1',
          _version: 1,
          changedFields: ['name'],
          item: { _id: 'o1', name: 'v1' },
        },
      },
    });
    expect(JSON.stringify(created?.event?.data)).not.toMatch(/_hop|_size|"hop"/);
    // The same record, the same id; another record, another id.
    expect(
      itemChangeOf({ eventName: 'INSERT', newImage: item('orders', 'o1', 1), recordId: 'r1' })?.event?.id,
    ).toBe(created?.event?.id);
    expect(
      itemChangeOf({ eventName: 'INSERT', newImage: item('orders', 'o1', 1), recordId: 'r2' })?.event?.id,
    ).not.toBe(created?.event?.id);
    // No event for messages, a thread's partition, a mark that keeps the version, a swept item.
    expect(
      itemChangeOf({ eventName: 'INSERT', newImage: item('messages', 'm', 1), recordId: 'r' }),
    ).toBeUndefined();
    expect(
      itemChangeOf({ eventName: 'INSERT', newImage: item('messages#THREAD#c', 'm', 1), recordId: 'r' }),
    ).toBeUndefined();
    expect(
      itemChangeOf({
        eventName: 'MODIFY',
        oldImage: item('orders', 'o1', 1),
        newImage: item('orders', 'o1', 1, { _hop: 1 }),
        recordId: 'r',
      })?.event,
    ).toBeUndefined();
    expect(
      itemChangeOf({
        eventName: 'REMOVE',
        oldImage: item('orders', 'o1', 1, { _quiet: true }),
        recordId: 'r',
      }),
    ).toMatchObject({ delta: { count: -1, bytes: -20 } });
    expect(
      itemChangeOf({
        eventName: 'REMOVE',
        oldImage: item('orders', 'o1', 1, { _quiet: true }),
        recordId: 'r',
      })?.event,
    ).toBeUndefined();
  });

  it("date a delete at its record, never before the item's last write", () => {
    const at = (recordTime: number | undefined) =>
      itemChangeOf({
        eventName: 'REMOVE',
        oldImage: item('orders', 'o1', 3),
        recordId: 'r',
        ...(recordTime === undefined ? {} : { recordTime }),
      })?.event?.now.toISOString();
    expect(at(Date.parse('2026-11-29T11:00:00.000Z'))).toBe('2026-11-29T11:00:00.000Z');
    expect(at(Date.parse('2026-11-29T10:00:00.000Z'))).toBe('2026-11-29T10:00:03.001Z');
    expect(at(undefined)).toBe('2026-11-29T10:00:03.001Z');
  });
});

describe('chunks of counted changes', () => {
  it('leave alone a write made before change events came from the stream (its image has no _streamed)', () => {
    const legacy = { _streamed: undefined };
    for (const type of ['contacts', 'orders']) {
      expect(
        itemChangeOf({ eventName: 'INSERT', newImage: item(type, 'a', 1, legacy), recordId: 'r1' }),
      ).toBe(undefined);
      expect(
        itemChangeOf({
          eventName: 'MODIFY',
          newImage: item(type, 'a', 2, legacy),
          oldImage: item(type, 'a', 1, legacy),
          recordId: 'r2',
        }),
      ).toBe(undefined);
      expect(
        itemChangeOf({ eventName: 'REMOVE', oldImage: item(type, 'a', 2, legacy), recordId: 'r3' }),
      ).toBe(undefined);
    }
    // A legacy item written again since: its update is raised (its count moves by its bytes only), and its
    // delete, once the item is marked, counts it out.
    const updated = itemChangeOf({
      eventName: 'MODIFY',
      newImage: item('contacts', 'a', 2, { _size: 30 }),
      oldImage: item('contacts', 'a', 1, legacy),
      recordId: 'r4',
    });
    expect(updated).toMatchObject({
      delta: { count: 0, bytes: 10 },
      event: { type: 'dynadata.item.updated' },
    });
    const marked = itemChangeOf({
      eventName: 'MODIFY',
      newImage: item('contacts', 'a', 1),
      oldImage: item('contacts', 'a', 1, legacy),
      recordId: 'r5',
    });
    expect(marked).toMatchObject({ delta: { count: 0, bytes: 0 } });
    expect(marked?.event).toBe(undefined);
    expect(
      itemChangeOf({ eventName: 'REMOVE', oldImage: item('contacts', 'a', 1), recordId: 'r6' }),
    ).toMatchObject({ delta: { count: -1, bytes: -20 }, event: { type: 'dynadata.item.deleted' } });
  });

  it('keep the order, hold one change of an item at most, and stay within 100 actions', () => {
    expect(
      chunksOf([change('a'), change('b'), change('a'), change('c')]).map((c) => c.map((x) => x.itemKey)),
    ).toEqual([
      ['a', 'b'],
      ['a', 'c'],
    ]);
    const many = Array.from({ length: 250 }, (_, i) => change(`i${i}`));
    // 99 events and one counter, then again, then the rest.
    expect(chunksOf(many).map((c) => c.length)).toEqual([99, 99, 52]);
    const companies = Array.from({ length: 60 }, (_, i) => change(`j${i}`, 'contacts', `co_${i}`));
    // Each company adds its counter: 50 events and 50 counters.
    expect(chunksOf(companies).map((c) => c.length)).toEqual([50, 10]);
  });
});
