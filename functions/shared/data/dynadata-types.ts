import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from './client';
import { partitions } from './keys';

/**
 * Dynadata type records, one per company and type in the company's `CO#<id>#DDTYPE` partition. A custom
 * type's record holds its schema (`schemaJson`), `typeVersion` (bumped by every `types put`) and
 * `itemCount`; a built-in type's record holds only `itemCount` (created by the first item write). Item writes
 * adjust `itemCount` in their own transaction (see `dynadata-items.ts`), which is what lets `types delete`
 * refuse while items exist without reading them.
 */
export const dynadataTypeKey = (companyId: string, typeName: string) => ({
  pk: partitions.dynadataTypes(companyId),
  sk: typeName,
});

export interface StoredTypeDefinition {
  name: string;
  description: string;
  schemaJson: string;
  indexed: string[];
  functions: string[];
  typeVersion: number;
  itemCount: number;
  createdAt: string;
  updatedAt: string;
}

const ENTITY = 'dd_type';

const fromItem = (item: Record<string, unknown>): StoredTypeDefinition => ({
  name: String(item.sk),
  description: String(item.description ?? ''),
  schemaJson: String(item.schemaJson),
  indexed: (item.indexed as string[] | undefined) ?? [],
  functions: (item.functions as string[] | undefined) ?? [],
  typeVersion: Number(item.typeVersion),
  itemCount: Number(item.itemCount ?? 0),
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt),
});

/** A custom type of the company, or undefined (built-in stat records have no schema and are skipped). */
export const getCustomType = async (
  companyId: string,
  typeName: string,
): Promise<StoredTypeDefinition | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: dynadataTypeKey(companyId, typeName),
      ConsistentRead: true,
    }),
  );
  return Item && typeof Item.schemaJson === 'string' ? fromItem(Item) : undefined;
};

export const getTypeItemCount = async (companyId: string, typeName: string): Promise<number> => {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: dynadataTypeKey(companyId, typeName),
      ConsistentRead: true,
    }),
  );
  return Number(Item?.itemCount ?? 0);
};

/** Every custom type of the company (one query; a company has few types). */
export const listCustomTypes = async (companyId: string): Promise<StoredTypeDefinition[]> =>
  (
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': dynadataTypeKey(companyId, '').pk },
    })
  )
    .filter((item) => typeof item.schemaJson === 'string')
    .map(fromItem);

/**
 * Creates or replaces a custom type's schema, keeping its item count and bumping its version (item writes
 * made against the old version fail their condition and are revalidated).
 */
export const putCustomType = async (
  companyId: string,
  def: { name: string; description: string; schemaJson: string; indexed: string[]; functions: string[] },
  now: Date,
): Promise<StoredTypeDefinition> => {
  const current = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: dynadataTypeKey(companyId, def.name),
      ConsistentRead: true,
    }),
  );
  const previous = current.Item;
  const previousIndexed = (previous?.indexed as string[] | undefined) ?? [];
  const itemCount = Number(previous?.itemCount ?? 0);
  // Items written before an index change carry no (or another) index entry: refuse while there are items.
  if (itemCount > 0 && JSON.stringify(previousIndexed) !== JSON.stringify(def.indexed))
    throw new IndexChangeWithItemsError(itemCount, previousIndexed, def.indexed);
  const typeVersion = Number(previous?.typeVersion ?? 0) + 1;
  const item = {
    ...dynadataTypeKey(companyId, def.name),
    entity: ENTITY,
    description: def.description,
    schemaJson: def.schemaJson,
    indexed: def.indexed,
    functions: def.functions,
    typeVersion,
    itemCount: Number(previous?.itemCount ?? 0),
    createdAt: String(previous?.createdAt ?? now.toISOString()),
    updatedAt: now.toISOString(),
  };
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: item,
      ConditionExpression: previous
        ? 'typeVersion = :v AND itemCount = :n'
        : 'attribute_not_exists(pk) OR attribute_not_exists(typeVersion)',
      ...(previous
        ? {
            ExpressionAttributeValues: {
              ':v': previous.typeVersion ?? 0,
              ':n': previous.itemCount ?? 0,
            },
          }
        : {}),
    }),
  );
  return fromItem(item);
};

export class IndexChangeWithItemsError extends Error {
  constructor(
    readonly itemCount: number,
    readonly from: string[],
    readonly to: string[],
  ) {
    super(
      `x-indexed cannot change from [${from.join(', ')}] to [${to.join(', ')}] while the type has ` +
        `${itemCount} items (their index entries would be missing or wrong); keep x-indexed as it is, or ` +
        'delete the items first (types delete --force) and put the type again',
    );
    this.name = 'IndexChangeWithItemsError';
  }
}

export class TypeHasItemsError extends Error {
  constructor(readonly itemCount: number) {
    super(`the type still has ${itemCount} items`);
    this.name = 'TypeHasItemsError';
  }
}

/** Deletes a custom type's record, only while it has no items. */
export const deleteCustomTypeRecord = async (companyId: string, typeName: string): Promise<void> => {
  try {
    await ddb.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: dynadataTypeKey(companyId, typeName),
        ConditionExpression: 'attribute_not_exists(itemCount) OR itemCount <= :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error))
      throw new TypeHasItemsError(await getTypeItemCount(companyId, typeName));
    throw error;
  }
};
