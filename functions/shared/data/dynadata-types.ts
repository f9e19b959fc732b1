import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lazy } from '../lazy';
import { TYPE_ENTITY } from '../types/dynadata-types';
import * as zm from '../zod-mini';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from './client';
import { decodeItem, defineEntity } from './entity';
import { partitions } from './keys';

/**
 * Dynadata type records, one per company and type in the company's `CO#<id>#DDTYPE` partition. A custom
 * type's record holds its schema (`schemaJson`), `typeVersion` (bumped by every `types put`) and
 * `itemCount`; a built-in type's record holds only `itemCount` (created by the first item write). Item writes
 * adjust `itemCount` in their own transaction (see `dynadata-items.ts`), which is what lets `types delete`
 * refuse while items exist without reading them. A type whose items are being deleted holds
 * `status: 'deleting'` and the running `deletedItems` until its record goes.
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
  status: TypeStatus;
  deletedItems: number;
  /** The turn of the background deletion of a deleting type: each turn deletes a share of its items. */
  sweep: number;
  /** A schema change under check (`PUT` of a type with items), while it is checked. */
  change?: PendingChange;
  createdAt: string;
  updatedAt: string;
}

/**
 * A schema change being checked against the stored items: item writes meanwhile are validated against it too,
 * and one it would break counts itself in `breaks`, so the change is refused even for an item the check had
 * already read (`docs/decisions/0027-type-changes-against-items.md`).
 */
export interface PendingChange {
  token: string;
  schemaJson: string;
  breaks: number;
  startedAt: string;
}

export type TypeStatus = 'active' | 'deleting';

/** A type record: a custom type's (with its schema), or a built-in type's item count alone. */
const DynadataType = /* @__PURE__ */ defineEntity({
  name: TYPE_ENTITY,
  key: dynadataTypeKey,
  get schema() {
    return zm.object({
      description: zm.optional(zm.string()),
      schemaJson: zm.optional(zm.string()),
      indexed: zm.optional(zm.array(zm.string())),
      functions: zm.optional(zm.array(zm.string())),
      typeVersion: zm.optional(zm.number()),
      itemCount: zm.optional(zm.number()),
      status: zm.optional(zm.enum(['active', 'deleting'])),
      deletedItems: zm.optional(zm.number()),
      sweep: zm.optional(zm.number()),
      changeToken: zm.optional(zm.string()),
      changeSchemaJson: zm.optional(zm.string()),
      changeBreaks: zm.optional(zm.number()),
      changeStartedAt: zm.optional(zm.string()),
      createdAt: zm.optional(zm.string()),
      updatedAt: zm.optional(zm.string()),
    });
  },
});

/** What a custom type's record always holds besides its schema. */
const customTypeSchema = /* @__PURE__ */ lazy(() =>
  zm.object({
    sk: zm.string(),
    schemaJson: zm.string(),
    typeVersion: zm.number(),
    createdAt: zm.string(),
    updatedAt: zm.string(),
  }),
);

const isCustomType = (item: Record<string, unknown>) => DynadataType.decode(item).schemaJson !== undefined;

const fromItem = (item: Record<string, unknown>): StoredTypeDefinition => {
  const record = DynadataType.decode(item);
  const custom = decodeItem(DynadataType.name, customTypeSchema(), item);
  return {
    name: custom.sk,
    description: record.description ?? '',
    schemaJson: custom.schemaJson,
    indexed: record.indexed ?? [],
    functions: record.functions ?? [],
    typeVersion: custom.typeVersion,
    itemCount: record.itemCount ?? 0,
    status: record.status ?? 'active',
    deletedItems: record.deletedItems ?? 0,
    sweep: record.sweep ?? 0,
    ...(record.changeToken !== undefined && record.changeSchemaJson !== undefined
      ? {
          change: {
            token: record.changeToken,
            schemaJson: record.changeSchemaJson,
            breaks: record.changeBreaks ?? 0,
            startedAt: record.changeStartedAt ?? '',
          },
        }
      : {}),
    createdAt: custom.createdAt,
    updatedAt: custom.updatedAt,
  };
};

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
  return Item && isCustomType(Item) ? fromItem(Item) : undefined;
};

export const getTypeItemCount = async (companyId: string, typeName: string): Promise<number> => {
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: dynadataTypeKey(companyId, typeName),
      ConsistentRead: true,
    }),
  );
  return Item ? (DynadataType.decode(Item).itemCount ?? 0) : 0;
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
    .filter(isCustomType)
    .map(fromItem);

/** The type changed (another definition, items written or deleted) since the version a write was based on. */
export class TypeChangedError extends Error {
  constructor() {
    super('the type changed since it was read');
    this.name = 'TypeChangedError';
  }
}

/** Items written while a schema change was checked fail it: the change is refused. */
export class ChangeBreaksItemsError extends Error {
  constructor(readonly breaks: number) {
    super(`${breaks} items written while the change was checked fail it`);
    this.name = 'ChangeBreaksItemsError';
  }
}

const CHANGE_FIELDS = ['changeToken', 'changeSchemaJson', 'changeBreaks', 'changeStartedAt'] as const;

/**
 * Creates a custom type, or stores the next version of its definition, bumping its version (item writes made
 * against the old version fail their condition and are revalidated) and ending any change under check.
 * `previous` is the record the caller checked the change against (undefined: the type is new). The write holds
 * only while the type still has that version and either the change `token` the caller checked under, with no
 * item written meanwhile that breaks it (else `ChangeBreaksItemsError`), or, without a token, that item count;
 * else `TypeChangedError`.
 */
export const putCustomType = async (
  companyId: string,
  def: { name: string; description: string; schemaJson: string; indexed: string[]; functions: string[] },
  previous: StoredTypeDefinition | undefined,
  now: Date,
  token?: string,
): Promise<StoredTypeDefinition> => {
  const key = dynadataTypeKey(companyId, def.name);
  const fields = {
    description: def.description,
    schemaJson: def.schemaJson,
    indexed: def.indexed,
    functions: def.functions,
    status: 'active' as const,
    updatedAt: now.toISOString(),
  };
  try {
    if (!previous) {
      const item = DynadataType.item(key, {
        ...fields,
        typeVersion: 1,
        itemCount: 0,
        createdAt: fields.updatedAt,
      });
      await ddb.send(
        new PutCommand({
          TableName: tableName(),
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk) OR attribute_not_exists(typeVersion)',
        }),
      );
      return fromItem(item);
    }
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        ...DynadataType.update(
          { set: fields, add: { typeVersion: 1 }, remove: CHANGE_FIELDS },
          token
            ? {
                expression:
                  '#typeVersion = :v AND #changeToken = :ct AND (attribute_not_exists(#changeBreaks) OR #changeBreaks = :zero)',
                values: { ':v': previous.typeVersion, ':ct': token, ':zero': 0 },
              }
            : {
                expression: '#typeVersion = :v AND itemCount = :n',
                values: { ':v': previous.typeVersion, ':n': previous.itemCount },
              },
        ),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(Attributes ?? {});
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const change = token ? (await getCustomType(companyId, def.name))?.change : undefined;
    if (change && change.token === token && change.breaks > 0)
      throw new ChangeBreaksItemsError(change.breaks);
    throw new TypeChangedError();
  }
};

/** A change under check older than this was left by a request that ended: another change may take over. */
const STALE_CHANGE_MS = 60_000;

/**
 * Starts checking a schema change of a type at `typeVersion`: from now on item writes are validated against
 * `schemaJson` too. False when the type changed, or another change is being checked.
 */
export const beginTypeChange = (
  companyId: string,
  typeName: string,
  change: { typeVersion: number; token: string; schemaJson: string },
  now: Date,
): Promise<boolean> =>
  updateTypeIf(
    companyId,
    typeName,
    {
      set: {
        changeToken: change.token,
        changeSchemaJson: change.schemaJson,
        changeBreaks: 0,
        changeStartedAt: now.toISOString(),
      },
    },
    {
      expression: 'typeVersion = :tv AND (attribute_not_exists(#changeToken) OR #changeStartedAt < :stale)',
      values: {
        ':tv': change.typeVersion,
        ':stale': new Date(now.getTime() - STALE_CHANGE_MS).toISOString(),
      },
    },
  );

/** Ends a change under check that was not stored (refused, or failed): item writes go back to one schema. */
export const endTypeChange = async (companyId: string, typeName: string, token: string): Promise<void> => {
  await updateTypeIf(
    companyId,
    typeName,
    { remove: CHANGE_FIELDS },
    { expression: '#changeToken = :ct', values: { ':ct': token } },
  );
};

type TypeRecordChange = Parameters<typeof DynadataType.update>[0];
type TypeRecordCondition = NonNullable<Parameters<typeof DynadataType.update>[1]>;

/** Changes a type's record under `condition`: false when the condition does not hold. */
const updateTypeIf = async (
  companyId: string,
  typeName: string,
  change: TypeRecordChange,
  condition: TypeRecordCondition,
): Promise<boolean> => {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: dynadataTypeKey(companyId, typeName),
        ...DynadataType.update(change, condition),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};

/**
 * Marks a custom type as deleting its items: bumps its version (item writes based on the old one fail their
 * condition, and the fresh type refuses them) and starts `deletedItems` and `sweep` at 0. Only from
 * `typeVersion`. The change itself starts the background deletion (the table's stream).
 */
export const markTypeDeleting = async (
  companyId: string,
  typeName: string,
  typeVersion: number,
  now: Date,
): Promise<void> => {
  const marked = await updateTypeIf(
    companyId,
    typeName,
    {
      set: { status: 'deleting', deletedItems: 0, sweep: 0, updatedAt: now.toISOString() },
      add: { typeVersion: 1 },
    },
    { expression: '#typeVersion = :tv', values: { ':tv': typeVersion } },
  );
  if (!marked) throw new TypeChangedError();
};

/** Adds to the running count of items deleted with a deleting type (what its GET shows). */
export const addDeletedItems = async (companyId: string, typeName: string, count: number): Promise<void> => {
  await updateTypeIf(
    companyId,
    typeName,
    { add: { deletedItems: count } },
    { expression: 'attribute_exists(pk)' },
  );
};

/**
 * Hands a deleting type's background deletion on to its next turn (`sweep + 1`, a change the stream carries
 * to the next turn), only from turn `sweep`: false when another turn already moved on (a stream record handled
 * twice), which then stops.
 */
export const advanceTypeSweep = (
  companyId: string,
  typeName: string,
  sweep: number,
  now: Date,
): Promise<boolean> =>
  updateTypeIf(
    companyId,
    typeName,
    { add: { sweep: 1 }, set: { updatedAt: now.toISOString() } },
    {
      expression: '#sweep = :sweep AND #status = :deleting',
      names: { '#status': 'status' },
      values: { ':sweep': sweep, ':deleting': 'deleting' },
    },
  );

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
