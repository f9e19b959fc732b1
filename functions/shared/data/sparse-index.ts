import { queryAll, tableName } from './client';
import { TABLE_SHAPE } from './table';

/**
 * Sparse partitions of `gsi1` that hold only what is unfinished: an item enters the partition (its `gsi1pk`
 * set) when its work starts and leaves it (`gsi1pk` removed) in the write that finishes the work, so the
 * partition never grows with history. Operator sweeps and the local stack's start-up read them; no request
 * path does. Each owner module names its partition (`lib/grants/partitions.ts` lists them).
 */
export const INDEX_ATTRIBUTES = [TABLE_SHAPE.gsi1.partitionKey, TABLE_SHAPE.gsi1.sortKey] as const;

/** The index attributes that put an item into `partition`, ordered by `sortKey` there. */
export const sparseIndexKey = (partition: string, sortKey: string) => ({
  gsi1pk: partition,
  gsi1sk: sortKey,
});

/** Every item of a sparse partition, page after page. */
export const listSparsePartition = (partition: string): Promise<Record<string, unknown>[]> =>
  queryAll({
    TableName: tableName(),
    IndexName: TABLE_SHAPE.gsi1.indexName,
    KeyConditionExpression: 'gsi1pk = :p',
    ExpressionAttributeValues: { ':p': partition },
  });
