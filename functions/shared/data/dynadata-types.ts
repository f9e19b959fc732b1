import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lazy } from '../lazy';
import { TYPE_ENTITY } from '../types/dynadata-types';
import * as zm from '../zod-mini';
import { ddb, isConditionalCheckFailed, queryAll, tableName } from './client';
import {
  getTypeCounter,
  isTypeCounter,
  migrateTypeCounter,
  newTypeCounter,
  type StoredTypeCounter,
  toTypeCounter,
  typeCounterChange,
  typeCounterKey,
} from './dynadata-type-counters';
import { decodeItem, defineEntity, type TransactItem } from './entity';
import { partitions } from './keys';
import { cancellationReasons, sendTransaction } from './transactions';
import { addDatabaseBytesItem } from './usage-meters';

/**
 * Dynadata type records, one per company and custom type in the company's `CO#<id>#DDTYPE` partition: the
 * schema (`schemaJson`) and `typeVersion` (bumped by every `types put`). Each type's `itemCount` is on its
 * counter item beside the record (`dynadata-type-counters.ts`; a record written before the counter existed
 * holds it until the counter is created, and a built-in type's record held only it). Item writes adjust the
 * counter in their own transaction (see `dynadata-items.ts`), which is what lets `types delete` refuse while
 * items exist without reading them; every change of a custom type writes its record and its counter in one
 * transaction. A type whose items are being deleted holds `status: 'deleting'` and the running `deletedItems`
 * until its record goes.
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

const fromItem = (
  item: Record<string, unknown>,
  counter: StoredTypeCounter | undefined,
): StoredTypeDefinition => {
  const record = DynadataType.decode(item);
  const custom = decodeItem(DynadataType.name, customTypeSchema(), item);
  return {
    name: custom.sk,
    description: record.description ?? '',
    schemaJson: custom.schemaJson,
    indexed: record.indexed ?? [],
    functions: record.functions ?? [],
    typeVersion: custom.typeVersion,
    itemCount: counter?.itemCount ?? record.itemCount ?? 0,
    status: record.status ?? 'active',
    deletedItems: record.deletedItems ?? 0,
    sweep: record.sweep ?? 0,
    ...(record.changeToken !== undefined && record.changeSchemaJson !== undefined
      ? {
          change: {
            token: record.changeToken,
            schemaJson: record.changeSchemaJson,
            breaks: counter?.changeBreaks ?? record.changeBreaks ?? 0,
            startedAt: record.changeStartedAt ?? '',
          },
        }
      : {}),
    createdAt: custom.createdAt,
    updatedAt: custom.updatedAt,
  };
};

const getRecord = async (companyId: string, typeName: string) =>
  (
    await ddb.send(
      new GetCommand({
        TableName: tableName(),
        Key: dynadataTypeKey(companyId, typeName),
        ConsistentRead: true,
      }),
    )
  ).Item;

/**
 * A custom type of the company with its item count (its record and its counter), or undefined (a built-in
 * type's record has no schema). `count: false` reads the record alone (an item write validates against it;
 * its `itemCount` and `change.breaks` are then not read).
 */
export const getCustomType = async (
  companyId: string,
  typeName: string,
  options: { count?: boolean } = {},
): Promise<StoredTypeDefinition | undefined> => {
  const [Item, counter] = await Promise.all([
    getRecord(companyId, typeName),
    options.count === false ? undefined : getTypeCounter(companyId, typeName),
  ]);
  return Item && isCustomType(Item) ? fromItem(Item, counter) : undefined;
};

export const getTypeItemCount = async (companyId: string, typeName: string): Promise<number> => {
  const [Item, counter] = await Promise.all([
    getRecord(companyId, typeName),
    getTypeCounter(companyId, typeName),
  ]);
  return counter?.itemCount ?? (Item ? (DynadataType.decode(Item).itemCount ?? 0) : 0);
};

/** Every custom type of the company with its count (one query of the partition; a company has few types). */
export const listCustomTypes = async (companyId: string): Promise<StoredTypeDefinition[]> => {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': dynadataTypeKey(companyId, '').pk },
  });
  const counters = new Map(
    items.filter(isTypeCounter).map((raw) => [String(raw.sk), toTypeCounter(raw)] as const),
  );
  return items
    .filter((raw) => !isTypeCounter(raw) && isCustomType(raw))
    .map((raw) => fromItem(raw, counters.get(typeCounterKey(companyId, String(raw.sk)).sk)));
};

/**
 * Sends a change of a type (its record and its counter in one transaction): false when a condition failed.
 * A type whose counter is missing (written before counters existed) has it created, and the change is sent
 * once more.
 */
const transactTypeChange = async (
  companyId: string,
  typeName: string,
  items: () => TransactItem[],
): Promise<boolean> => {
  for (let attempt = 0; ; attempt++) {
    try {
      await sendTransaction(new TransactWriteCommand({ TransactItems: items() }));
      return true;
    } catch (error) {
      if (!cancellationReasons(error)?.some((r) => r.Code === 'ConditionalCheckFailed')) throw error;
      if (
        attempt > 0 ||
        !(await migrateTypeCounter(companyId, typeName, dynadataTypeKey(companyId, typeName), true))
      )
        return false;
    }
  }
};

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
  if (!previous) {
    const item = DynadataType.item(key, { ...fields, typeVersion: 1, createdAt: fields.updatedAt });
    const created = await transactTypeChange(companyId, def.name, () => [
      {
        Put: {
          TableName: tableName(),
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk) OR attribute_not_exists(typeVersion)',
        },
      },
      newTypeCounter(companyId, def.name),
    ]);
    if (!created) throw new TypeChangedError();
    return fromItem(item, { itemCount: 0, bytes: 0, changeBreaks: 0 });
  }
  // The record holds the version (and the change under check); its counter holds them too, with the count
  // and the items written meanwhile that break the change.
  const stored = await transactTypeChange(companyId, def.name, () => [
    {
      Update: {
        TableName: tableName(),
        Key: key,
        ...DynadataType.update(
          { set: fields, add: { typeVersion: 1 }, remove: CHANGE_FIELDS },
          token
            ? {
                expression: '#typeVersion = :v AND #changeToken = :ct',
                values: { ':v': previous.typeVersion, ':ct': token },
              }
            : { expression: '#typeVersion = :v', values: { ':v': previous.typeVersion } },
        ),
      },
    },
    typeCounterChange(
      companyId,
      def.name,
      { add: { typeVersion: 1 }, remove: ['changeToken', 'changeBreaks'] },
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
  ]);
  if (stored) {
    const written = await getCustomType(companyId, def.name);
    if (written) return written;
  }
  const change = token ? (await getCustomType(companyId, def.name))?.change : undefined;
  if (change && change.token === token && change.breaks > 0) throw new ChangeBreaksItemsError(change.breaks);
  throw new TypeChangedError();
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
  transactTypeChange(companyId, typeName, () => [
    typeRecordChange(
      companyId,
      typeName,
      {
        set: {
          changeToken: change.token,
          changeSchemaJson: change.schemaJson,
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
    ),
    typeCounterChange(
      companyId,
      typeName,
      { set: { changeToken: change.token, changeBreaks: 0 } },
      { expression: 'typeVersion = :tv', values: { ':tv': change.typeVersion } },
    ),
  ]);

/** Ends a change under check that was not stored (refused, or failed): item writes go back to one schema. */
export const endTypeChange = async (companyId: string, typeName: string, token: string): Promise<void> => {
  const condition = { expression: '#changeToken = :ct', values: { ':ct': token } };
  await transactTypeChange(companyId, typeName, () => [
    typeRecordChange(companyId, typeName, { remove: CHANGE_FIELDS }, condition),
    typeCounterChange(companyId, typeName, { remove: ['changeToken', 'changeBreaks'] }, condition),
  ]);
};

type TypeRecordChange = Parameters<typeof DynadataType.update>[0];
type TypeRecordCondition = NonNullable<Parameters<typeof DynadataType.update>[1]>;

/** A change of a type's record under `condition`, as a transaction item (beside its counter's). */
const typeRecordChange = (
  companyId: string,
  typeName: string,
  change: TypeRecordChange,
  condition: TypeRecordCondition,
): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: dynadataTypeKey(companyId, typeName),
    ...DynadataType.update(change, condition),
  },
});

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
  read: { typeVersion: number; itemCount: number },
  now: Date,
): Promise<void> => {
  const condition = { expression: '#typeVersion = :tv', values: { ':tv': read.typeVersion } };
  // The count as read, too: the items the deletion starts from are exactly those (none is written after).
  const counted = {
    expression: '#typeVersion = :tv AND itemCount = :n',
    values: { ':tv': read.typeVersion, ':n': read.itemCount },
  };
  const marked = await transactTypeChange(companyId, typeName, () => [
    typeRecordChange(
      companyId,
      typeName,
      {
        set: { status: 'deleting', deletedItems: 0, sweep: 0, updatedAt: now.toISOString() },
        add: { typeVersion: 1 },
      },
      condition,
    ),
    typeCounterChange(companyId, typeName, { add: { typeVersion: 1 } }, counted),
  ]);
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

/**
 * Deletes a custom type's record and its counter, only while it has no items, carrying the counter's bytes
 * (what its item writes added, less the bytes of deleted items counted before the counter existed) into the
 * company's `TOTALS`, in one transaction: `databaseBytes` stays exact.
 */
export const deleteCustomTypeRecord = async (companyId: string, typeName: string): Promise<void> => {
  const key = dynadataTypeKey(companyId, typeName);
  const counterKey = typeCounterKey(companyId, typeName);
  for (let attempt = 0; attempt < 3; attempt++) {
    const counter = await getTypeCounter(companyId, typeName);
    const items: TransactItem[] = counter
      ? [
          { Delete: { TableName: tableName(), Key: key } },
          {
            Delete: {
              TableName: tableName(),
              Key: counterKey,
              ConditionExpression: 'itemCount <= :zero AND bytes = :bytes',
              ExpressionAttributeValues: { ':zero': 0, ':bytes': counter.bytes },
            },
          },
          ...(counter.bytes !== 0 ? [addDatabaseBytesItem(companyId, counter.bytes)] : []),
        ]
      : [
          {
            Delete: {
              TableName: tableName(),
              Key: key,
              ConditionExpression: 'attribute_not_exists(itemCount) OR itemCount <= :zero',
              ExpressionAttributeValues: { ':zero': 0 },
            },
          },
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: counterKey,
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ];
    try {
      await sendTransaction(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!cancellationReasons(error)?.some((r) => r.Code === 'ConditionalCheckFailed')) throw error;
      const left = await getTypeItemCount(companyId, typeName);
      if (left > 0) throw new TypeHasItemsError(left);
    }
  }
  throw new TypeHasItemsError(await getTypeItemCount(companyId, typeName));
};
