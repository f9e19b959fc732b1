import { getItemsByKey } from './batch';
import { queryAll, tableName } from './client';
import { TABLE_SHAPE } from './table';

/**
 * Sparse partitions of the keys-only `work` index that hold only what is unfinished: an item enters the
 * partition (its `workpk` set) when its work starts and leaves it (`workpk` removed) in the write that finishes
 * the work, so the partition never grows with history, and an update in between that changes no `work`
 * attribute writes nothing to the index. Operator sweeps and the local stack's start-up read them; no request
 * path does. Each owner module names its partition (`lib/grants/partitions.ts` lists them). The index also
 * holds one partition that is not unfinished work: each webhook endpoint's delivery log (keys only, read a
 * page at a time by `webhook-delivery-log.ts`, kept as long as the events).
 *
 * Items marked before the `work` index existed carry their place in `gsi1` instead (same partition and sort
 * key): a write that ends the work removes both, and a reader reads both and merges them by item key, until
 * every item marked before it has finished (`docs/decisions/0040-keys-only-work-index.md`).
 */
const { work, gsi1 } = TABLE_SHAPE;

/** The attributes a write that ends the work removes: the item's place in `work`, and any older one in `gsi1`. */
export const INDEX_ATTRIBUTES = [work.partitionKey, work.sortKey, gsi1.partitionKey, gsi1.sortKey] as const;

/** The index attributes that put an item into `partition`, ordered by `sortKey` there. */
export const sparseIndexKey = (partition: string, sortKey: string) => ({
  workpk: partition,
  worksk: sortKey,
});

/** Which part of a partition to read, by sort key: before a bound, or under a prefix. */
export type SortKeyRange = { before: string } | { prefix: string };

type Key = { pk: string; sk: string };
type IndexShape = (typeof TABLE_SHAPE)['work' | 'gsi1'];

/** Keys DynamoDB reads in one `BatchGetItem`. */
const BATCH_GET_LIMIT = 100;

const idOf = (item: Record<string, unknown>) => `${String(item.pk)}\u0000${String(item.sk)}`;

/** The item's sort key in the sparse partition it is in (its `work` place, or its older `gsi1` one). */
export const sparseSortKey = (item: Record<string, unknown>): string => String(item.worksk ?? item.gsi1sk);

const inRange = (sortKey: string, range?: SortKeyRange) =>
  range === undefined || ('before' in range ? sortKey < range.before : sortKey.startsWith(range.prefix));

const queryPartition = (index: IndexShape, partition: string, range?: SortKeyRange) =>
  queryAll({
    TableName: tableName(),
    IndexName: index.indexName,
    KeyConditionExpression:
      range === undefined
        ? '#p = :p'
        : `#p = :p AND ${'before' in range ? '#s < :s' : 'begins_with(#s, :s)'}`,
    ExpressionAttributeNames: {
      '#p': index.partitionKey,
      ...(range === undefined ? {} : { '#s': index.sortKey }),
    },
    ExpressionAttributeValues: {
      ':p': partition,
      ...(range === undefined ? {} : { ':s': 'before' in range ? range.before : range.prefix }),
    },
  });

/** The items at `keys`, 100 a `BatchGetItem` (unprocessed keys asked again, `getItemsByKey`); gone ones left out. */
const readItems = async (keys: readonly Key[]): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for (let at = 0; at < keys.length; at += BATCH_GET_LIMIT) {
    const batch = keys
      .slice(at, at + BATCH_GET_LIMIT)
      .map((key) => ({ key, decode: (item: unknown) => item }));
    for (const item of await getItemsByKey(batch)) if (item) items.push(item as Record<string, unknown>);
  }
  return items;
};

/**
 * Every item of a sparse partition (or of the part `range` names), in sort-key order: the keys from the
 * `work` index, then the items themselves, keeping those still in the partition (one may finish between the
 * two reads); merged by key with the items still marked in `gsi1` from before the `work` index.
 */
export const listSparsePartition = async (
  partition: string,
  range?: SortKeyRange,
): Promise<Record<string, unknown>[]> => {
  const [keys, legacy] = await Promise.all([
    queryPartition(work, partition, range),
    queryPartition(gsi1, partition, range),
  ]);
  const found = new Map(legacy.map((item) => [idOf(item), item]));
  const unread = keys
    .filter((key) => !found.has(idOf(key)))
    .map((key) => ({ pk: String(key.pk), sk: String(key.sk) }));
  for (const item of await readItems(unread)) {
    if (item.workpk === partition && inRange(String(item.worksk), range)) found.set(idOf(item), item);
  }
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...found.values()].sort((a, b) => order(sparseSortKey(a), sparseSortKey(b)));
};
