import { describe, expect, it } from 'vitest';
import {
  type IndexShape,
  type Item,
  indexWriteUnits,
  itemSize,
  numberSize,
  unitsOfGet,
  unitsOfQuery,
  unitsOfWrite,
  valueSize,
} from '../bench/request-units';

const GSI: IndexShape = { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' };
const KEYS_ONLY: IndexShape = { ...GSI, projection: 'KEYS_ONLY' };
/** An item of exactly `bytes` bytes: keys `pk` and `sk` (2 + 1 and 2 + 1) and a string `d` filling the rest. */
const itemOf = (bytes: number, extra: Item = {}): Item => {
  const base: Item = { pk: { S: 'p' }, sk: { S: 's' }, ...extra };
  const rest = bytes - itemSize(base) - 1;
  return { ...base, d: { S: 'x'.repeat(rest) } };
};

describe("DynamoDB's item size", () => {
  it('counts names and string values in UTF-8 bytes', () => {
    expect(itemSize({ name: { S: 'Ada' } })).toBe(7);
    expect(itemSize({ é: { S: 'ü' } })).toBe(4);
  });

  it('counts a number one byte per two significant digits plus one', () => {
    expect(numberSize('7')).toBe(2);
    expect(numberSize('12345')).toBe(4);
    expect(numberSize('1000')).toBe(2);
    expect(numberSize('-0.00125')).toBe(3);
  });

  it('counts binary in bytes, booleans and null as one byte', () => {
    expect(valueSize({ B: new Uint8Array(10) })).toBe(10);
    expect(valueSize({ BOOL: true })).toBe(1);
    expect(valueSize({ NULL: true })).toBe(1);
  });

  it('counts a list or map as 3 bytes plus its elements plus one byte each', () => {
    expect(valueSize({ L: [{ S: 'ab' }, { N: '1' }] })).toBe(3 + 2 + 1 + 2 + 1);
    expect(valueSize({ M: { a: { S: 'xy' } } })).toBe(3 + 1 + 2 + 1);
    expect(valueSize({ SS: ['a', 'bc'] })).toBe(3);
  });
});

describe('write units', () => {
  it('round each write up per KB of the larger of the item before and after, at least 1', () => {
    expect(unitsOfWrite(undefined, itemOf(1024), { indexes: [] }).table).toBe(1);
    expect(unitsOfWrite(undefined, itemOf(1025), { indexes: [] }).table).toBe(2);
    expect(unitsOfWrite(itemOf(3000), itemOf(100), { indexes: [] }).table).toBe(3);
    expect(unitsOfWrite(undefined, undefined, { indexes: [] }).table).toBe(1);
  });

  it('count a failed conditional write at the size of the item it found', () => {
    const found = itemOf(1500);
    expect(unitsOfWrite(found, found, { indexes: [] }).table).toBe(2);
  });

  it('count every action of a transaction twice, a ConditionCheck included', () => {
    expect(unitsOfWrite(undefined, itemOf(900), { transactional: true, indexes: [] }).table).toBe(2);
    const checked = itemOf(1100);
    expect(unitsOfWrite(checked, checked, { transactional: true, indexes: [] }).table).toBe(4);
  });
});

describe('index writes', () => {
  const keyed = (bytes: number, key: string) => itemOf(bytes, { gsi1pk: { S: 'T' }, gsi1sk: { S: key } });

  it('write the entry once when the index key appears or disappears', () => {
    expect(indexWriteUnits(undefined, keyed(500, 'a'), GSI)).toBe(1);
    expect(indexWriteUnits(keyed(500, 'a'), itemOf(500), GSI)).toBe(1);
    expect(indexWriteUnits(itemOf(500), itemOf(600), GSI)).toBe(0);
  });

  it('delete and put when the index key changes, each at its entry size', () => {
    expect(indexWriteUnits(keyed(500, 'a'), keyed(1500, 'b'), GSI)).toBe(1 + 2);
  });

  it('write once when the key stays and a projected attribute changes, nothing when nothing does', () => {
    expect(indexWriteUnits(keyed(500, 'a'), keyed(1500, 'a'), GSI)).toBe(2);
    expect(indexWriteUnits(keyed(500, 'a'), keyed(500, 'a'), GSI)).toBe(0);
  });

  it('size a KEYS_ONLY entry by the keys alone', () => {
    expect(indexWriteUnits(undefined, keyed(5000, 'a'), KEYS_ONLY)).toBe(1);
    expect(indexWriteUnits(undefined, keyed(5000, 'a'), GSI)).toBe(5);
  });

  it('are added to the table write, and doubled in a transaction', () => {
    expect(unitsOfWrite(undefined, keyed(1500, 'a'), { indexes: [GSI] })).toEqual({ table: 2, indexes: 2 });
    expect(unitsOfWrite(undefined, keyed(900, 'a'), { indexes: [GSI], transactional: true })).toEqual({
      table: 2,
      indexes: 2,
    });
  });
});

describe('read units', () => {
  it('bill a GetItem per 4 KB, half when eventually consistent, an absent item too', () => {
    expect(unitsOfGet(itemOf(4096), true)).toBe(1);
    expect(unitsOfGet(itemOf(4097), true)).toBe(2);
    expect(unitsOfGet(itemOf(4097), false)).toBe(1);
    expect(unitsOfGet(undefined, false)).toBe(0.5);
  });

  it('bill a Query by the total of the items read, rounded up once', () => {
    const items = Array.from({ length: 50 }, () => itemOf(200));
    // 10,000 bytes: 3 units of 4 KB, halved.
    expect(unitsOfQuery(items, false)).toBe(1.5);
    expect(unitsOfQuery(items, true)).toBe(3);
    expect(unitsOfQuery([], false)).toBe(0.5);
  });

  it('bill each item of TransactGetItems twice, strongly', () => {
    expect(unitsOfGet(itemOf(100), false, true)).toBe(2);
    expect(unitsOfGet(itemOf(5000), false, true)).toBe(4);
  });
});
