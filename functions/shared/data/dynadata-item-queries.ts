import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { indexPartition, itemPartition, SORT_INDEXES, type StoredItem, toStoredItem } from './dynadata-items';

/**
 * Queries of a Dynadata type's items (`dynadata-items.ts`): a page of its partition or of one of its sort
 * indexes, with the start key a query that continues after an item starts from.
 */
export interface ItemQuery {
  /** Position of the sort index to query (`SORT_INDEXES`), or undefined for the type's partition. */
  index?: number;
  forward: boolean;
  keyCondition?: { expression: string; values: Record<string, unknown> };
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
  limit: number;
  startKey?: Record<string, unknown>;
  countOnly?: boolean;
}

/** An item of a query page, decoded, with the key a query that continues after it starts from. */
export interface PagedItem {
  item: StoredItem;
  startKey: Record<string, unknown>;
}

/** One Query request over a type's partition (or its index), exactly as described. */
export const queryItemsPage = async (
  companyId: string,
  typeName: string,
  q: ItemQuery,
): Promise<{
  items: PagedItem[];
  count: number;
  scanned: number;
  lastKey?: Record<string, unknown>;
}> => {
  const index = q.index === undefined ? undefined : SORT_INDEXES[q.index];
  const pkName = index ? index.partitionKey : 'pk';
  const skName = index ? index.sortKey : 'sk';
  const pk = index ? indexPartition(companyId, typeName) : itemPartition(companyId, typeName);
  const keyExpr = `#pk = :pk${q.keyCondition ? ` AND ${q.keyCondition.expression}` : ''}`;
  const result = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      ...(index ? { IndexName: index.indexName } : {}),
      KeyConditionExpression: keyExpr,
      ...(q.filter ? { FilterExpression: q.filter.expression } : {}),
      ExpressionAttributeNames: {
        '#pk': pkName,
        ...(q.keyCondition ? { '#sk': skName } : {}),
        ...(q.filter?.names ?? {}),
      },
      ExpressionAttributeValues: {
        ':pk': pk,
        ...(q.keyCondition?.values ?? {}),
        ...(q.filter?.values ?? {}),
      },
      ScanIndexForward: q.forward,
      Limit: q.limit,
      ...(q.startKey ? { ExclusiveStartKey: q.startKey } : {}),
      ...(q.countOnly ? { Select: 'COUNT' } : {}),
    }),
  );
  return {
    items: (result.Items ?? []).map((raw) => ({
      item: toStoredItem(typeName, raw),
      startKey: startKeyOf(raw, q.index),
    })),
    count: result.Count ?? 0,
    scanned: Math.max(result.ScannedCount ?? 0, 1),
    ...(result.LastEvaluatedKey ? { lastKey: result.LastEvaluatedKey } : {}),
  };
};

/** True when `key` is a start key of the company's partition of the type (or of its index partition). */
export const isStartKeyOf = (
  companyId: string,
  typeName: string,
  indexAt: number | undefined,
  key: Record<string, unknown>,
): boolean => {
  const names = Object.keys(key).sort().join(',');
  if (
    typeof key.pk !== 'string' ||
    typeof key.sk !== 'string' ||
    key.pk !== itemPartition(companyId, typeName)
  )
    return false;
  if (indexAt === undefined) return names === 'pk,sk';
  const index = SORT_INDEXES[indexAt];
  return (
    index !== undefined &&
    names === [index.partitionKey, index.sortKey, 'pk', 'sk'].sort().join(',') &&
    key[index.partitionKey] === indexPartition(companyId, typeName) &&
    typeof key[index.sortKey] === 'string'
  );
};

/** Key of a raw item as DynamoDB expects it in `ExclusiveStartKey`. */
const startKeyOf = (raw: Record<string, unknown>, indexAt: number | undefined): Record<string, unknown> => {
  const index = indexAt === undefined ? undefined : SORT_INDEXES[indexAt];
  return index
    ? {
        pk: raw.pk,
        sk: raw.sk,
        [index.partitionKey]: raw[index.partitionKey],
        [index.sortKey]: raw[index.sortKey],
      }
    : { pk: raw.pk, sk: raw.sk };
};
