import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TABLE_INDEXES, TABLE_SHAPE } from '../../functions/shared/data/table';

/**
 * DynamoDB's request units by its documented rules (on-demand: a write request unit per 1 KB written, a read
 * request unit per 4 KB read strongly, half of one eventually), computed from the items a request touches.
 * Pure: `request-meter.ts` feeds it the items before and after each write and the items each read returned.
 *
 * - Item size: each attribute's name (UTF-8 bytes) plus its value: a string its UTF-8 bytes, a number one
 *   byte per two significant digits plus one, binary its bytes, a boolean or null one byte, a set the sum of
 *   its elements, a list or map 3 bytes plus each element (a map member with its name) plus one byte each.
 * - Write: ceil(size / 1 KB) of the larger of the item before and after, at least 1; a write whose condition
 *   fails consumes the same (the item it found). In TransactWriteItems every action counts twice, a
 *   ConditionCheck included (it is billed as a write).
 * - Index writes (each global secondary index of `TABLE_INDEXES`, with its projection): an item whose
 *   index key appears or disappears writes the index entry once; one whose index key changes deletes and
 *   puts (twice); one whose key stays and whose projected attributes change writes once; an unchanged entry
 *   writes nothing. Each at ceil(entry size / 1 KB); an ALL entry is the whole item, a KEYS_ONLY one the
 *   table and index keys.
 * - Reads: GetItem ceil(size / 4 KB), halved when eventually consistent, at least one half (an absent item
 *   too); Query and Scan the total size of the items read, rounded up per 4 KB, halved when eventual (an
 *   index is always eventual); BatchGetItem each item apart; TransactGetItems each item twice.
 */
export type Item = Record<string, AttributeValue>;

export type Projection = 'ALL' | 'KEYS_ONLY';

export interface IndexShape {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  projection: Projection;
}

/** The table's indexes as the data stack and the local stack create them, with their projections. */
export const TABLE_INDEX_SHAPES: readonly IndexShape[] = TABLE_INDEXES;

const KB = 1024;
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** Significant digits of a DynamoDB number (leading and trailing zeros and the sign and point dropped). */
const significantDigits = (n: string) => {
  const digits = n
    .replace(/^[+-]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  const trimmed = digits.replace(/^0+/, '').replace(/0+$/, '');
  return Math.max(1, trimmed.length);
};

export const numberSize = (n: string) => Math.ceil(significantDigits(n) / 2) + 1;

export const valueSize = (value: AttributeValue): number => {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, b) => sum + b.byteLength, 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, v) => sum + valueSize(v) + 1, 0);
  if (value.M !== undefined)
    return 3 + Object.entries(value.M).reduce((sum, [name, v]) => sum + utf8(name) + valueSize(v) + 1, 0);
  return 0;
};

export const itemSize = (item: Item | undefined): number =>
  item ? Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0) : 0;

/** Write units of one write of the item from `before` to `after` (either absent), at least 1. */
export const writeUnits = (before: Item | undefined, after: Item | undefined) =>
  Math.max(1, Math.ceil(Math.max(itemSize(before), itemSize(after)) / KB));

/** Read units of `bytes` read at once: per 4 KB, halved when eventually consistent, at least one half. */
export const readUnits = (bytes: number, strong: boolean) =>
  Math.max(1, Math.ceil(bytes / (4 * KB))) * (strong ? 1 : 0.5);

const keyOf = (item: Item | undefined, index: IndexShape) => {
  const pk = item?.[index.partitionKey]?.S;
  const sk = item?.[index.sortKey]?.S;
  return pk !== undefined && sk !== undefined ? `${pk}\u0000${sk}` : undefined;
};

/** The index entry of an item (absent when the item lacks the index key). */
export const indexEntry = (item: Item | undefined, index: IndexShape): Item | undefined => {
  if (!item || keyOf(item, index) === undefined) return undefined;
  if (index.projection === 'ALL') return item;
  const names = [TABLE_SHAPE.partitionKey, TABLE_SHAPE.sortKey, index.partitionKey, index.sortKey];
  return Object.fromEntries(names.flatMap((n) => (item[n] ? [[n, item[n]]] : [])));
};

const sameItem = (a: Item | undefined, b: Item | undefined) => {
  if (!a || !b) return a === b;
  const names = Object.keys(a);
  return (
    names.length === Object.keys(b).length &&
    names.every((n) => b[n] !== undefined && JSON.stringify(a[n]) === JSON.stringify(b[n]))
  );
};

/** Write units the write from `before` to `after` makes on one index, by the rules above. */
export const indexWriteUnits = (before: Item | undefined, after: Item | undefined, index: IndexShape) => {
  const old = indexEntry(before, index);
  const next = indexEntry(after, index);
  const units = (entry: Item | undefined) => Math.max(1, Math.ceil(itemSize(entry) / KB));
  if (!old && !next) return 0;
  if (!old) return units(next);
  if (!next) return units(old);
  if (keyOf(before, index) !== keyOf(after, index)) return units(old) + units(next);
  return sameItem(old, next) ? 0 : Math.max(units(old), units(next));
};

export interface WriteUnits {
  table: number;
  indexes: number;
}

/**
 * Units of one write from `before` to `after` (`after` equal to `before` for a failed condition or a
 * ConditionCheck: the table units only), times 2 in a transaction.
 */
export const unitsOfWrite = (
  before: Item | undefined,
  after: Item | undefined,
  options: { transactional?: boolean; indexes?: readonly IndexShape[] } = {},
): WriteUnits => {
  const factor = options.transactional ? 2 : 1;
  const indexes = (options.indexes ?? TABLE_INDEX_SHAPES).reduce(
    (sum, index) => sum + indexWriteUnits(before, after, index),
    0,
  );
  return { table: factor * writeUnits(before, after), indexes: factor * indexes };
};

/** Units of a Query or Scan that read `items` (before any filter). */
export const unitsOfQuery = (items: readonly Item[], strong: boolean) =>
  readUnits(
    items.reduce((sum, item) => sum + itemSize(item), 0),
    strong,
  );

/** Units of a GetItem (or each item of a BatchGetItem; `transactional` for TransactGetItems). */
export const unitsOfGet = (item: Item | undefined, strong: boolean, transactional = false) =>
  (transactional ? 2 : 1) * readUnits(itemSize(item), transactional || strong);
