import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ITEM_ENTITY } from '../types/dynadata-types';
import * as zm from '../zod-mini';
import { asTenantMap, ddb, tableName } from './client';
import { migrateTypeCounter, typeCounterWrite } from './dynadata-type-counters';
import { dynadataTypeKey } from './dynadata-types';
import { defineEntity, type TransactItem } from './entity';
import { indexPartitions, partitions } from './keys';
import { legacyLogEntryKey, logDayItem, logDayOf, logEntryKey } from './log-entries';
import { scheduledMessageIndexKey } from './scheduled-messages';
import { TABLE_INDEXES, TABLE_SHAPE } from './table';
import { cancellationReasons, sendTransaction } from './transactions';
import { undeliveredMessageIndexKey } from './undelivered-messages';
import { updateParams } from './update-expression';

/**
 * Dynadata items. Each type of a company has its own partition `CO#<companyId>#DD#<type>` with the item `_id`
 * (a ULID, so the partition sorts by creation time) as sort key; the fields of the item live in the `data`
 * map, apart from the system attributes. A type that declares indexed fields (`x-indexed`, at most
 * `SORT_INDEXES.length`) writes, for its n-th indexed field, `gsi<n>pk = CO#<companyId>#DD#<type>#IX` and
 * `gsi<n>sk = <order-preserving value>#<_id>` (`docs/decisions/0031-dynadata-sort-indexes.md`).
 *
 * A message of the built-in `messages` type (which indexes no field) is in the sparse index partition of
 * undelivered messages while its status is `queued` (`undelivered-messages.ts`).
 *
 * The built-in `log_entries` type reads the audit-trail items of `log-entries.ts` (a partition per UTC day and
 * shard, sort key `<epoch ms, 15 digits>#<requestId>`); their `_id` is the sort key with `-` in place of `#`,
 * so ids sort by time too, and name their partition (the day of the time, the shard of the request id).
 *
 * A write of a custom type (and of `messages`) is one transaction: the item (conditional on its absence or on
 * its `_version`) and the type's small counter item (`dynadata-type-counters.ts`): its `itemCount` and `bytes`
 * (the company's `databaseBytes` is the `TOTALS` figure plus the bytes of every counter), conditional on the
 * custom type's `typeVersion` and on the schema change under check, so a schema change or a type deletion
 * never races an item write (`docs/decisions/0049-dynadata-type-counter-item.md`). A write of `contacts` (a
 * built-in type that raises change events, `STREAM_COUNTED_TYPES`) is the item's write alone: the event
 * dispatcher counts it from the table's stream, with its change event
 * (`docs/decisions/0063-dynadata-change-events-from-the-stream.md`).
 *
 * Three internal attributes serve the stream and are never read back into an item's fields: `_streamed`, on
 * every item of a type that raises change events written since they come from the stream (the dispatcher
 * acts only on an item record that shows it: a write made by the code before, which wrote its event and its
 * count itself, is never raised or counted twice, and an item written before is marked before it is
 * deleted); `_hop`, the workflow hop of the write that left the item (absent for 0), which the change event
 * carries; `_quiet`, set on an item just before a bookkeeping delete (a deleting type's sweep), which raises
 * no event.
 */
export const LOG_ENTRIES_TYPE = 'log_entries';
export const MESSAGES_TYPE = 'messages';
/**
 * The built-in types whose item writes are counted from the table's stream (with their change events): the
 * request writes the item alone.
 */
export const STREAM_COUNTED_TYPES: readonly string[] = ['contacts'];
const countedFromStream = (typeName: string) => STREAM_COUNTED_TYPES.includes(typeName);

export const itemPartition = (companyId: string, typeName: string): string =>
  typeName === LOG_ENTRIES_TYPE
    ? legacyLogEntryKey(companyId, 0, '').pk
    : partitions.dynadataItems(companyId, typeName);

export const indexPartition = (companyId: string, typeName: string): string =>
  indexPartitions.dynadataIndex(companyId, typeName);

const LOG_ID = /^(\d{15})-(.{1,100})$/;

export const itemIdOfSortKey = (typeName: string, sk: string): string =>
  typeName === LOG_ENTRIES_TYPE ? sk.replace('#', '-') : sk;

export const itemKey = (companyId: string, typeName: string, id: string) => {
  if (typeName === LOG_ENTRIES_TYPE) {
    const match = LOG_ID.exec(id);
    return match?.[1] && match[2] ? logEntryKey(companyId, Number(match[1]), match[2]) : undefined;
  }
  return { pk: itemPartition(companyId, typeName), sk: id };
};

/** Order-preserving text of an indexed value: numbers by their IEEE 754 bits, strings as they are. */
export const indexValue = (value: unknown): string | undefined => {
  if (typeof value === 'string') return `s${value}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value === 0 ? 0 : value);
  let hi = view.getUint32(0);
  let lo = view.getUint32(4);
  if (hi & 0x80000000) {
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
  } else {
    hi = (hi | 0x80000000) >>> 0;
  }
  return `n${hi.toString(16).padStart(8, '0')}${lo.toString(16).padStart(8, '0')}`;
};

export interface StoredItem {
  _id: string;
  _version: number;
  createdAt: string;
  updatedAt: string;
  data: Record<string, unknown>;
  /** Bytes the item counts for in `databaseBytes`. */
  size: number;
  /** The workflow hop of the write that left the item (internal: never one of its fields). */
  hop?: number;
  /** Written since change events come from the stream (`_streamed`; internal: never one of its fields). */
  streamed?: boolean;
}

/** A Dynadata item of a custom or built-in type (not `log_entries`, whose items are `log-entries.ts`'s). */
const DynadataItem = /* @__PURE__ */ defineEntity({
  name: ITEM_ENTITY,
  key: (companyId: string, typeName: string, id: string) => ({
    pk: itemPartition(companyId, typeName),
    sk: id,
  }),
  get schema() {
    return zm.object({
      _id: zm.string(),
      _version: zm.number(),
      createdAt: zm.string(),
      updatedAt: zm.string(),
      data: zm.optional(zm.record(zm.string(), zm.unknown())),
      _size: zm.optional(zm.number()),
      _hop: zm.optional(zm.number()),
      _quiet: zm.optional(zm.boolean()),
      _streamed: zm.optional(zm.boolean()),
    });
  },
});
/** The indexes a type's indexed fields use, in `x-indexed` order: `gsi1` for the first, and so on. */
export const SORT_INDEXES = [TABLE_SHAPE.gsi1, TABLE_SHAPE.gsi2, TABLE_SHAPE.gsi3] as const;
const SYSTEM = new Set([
  'pk',
  'sk',
  ...TABLE_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
  'entity',
  'ttl',
]);

/** Maps a raw table item of a type to the stored item. */
export const toStoredItem = (typeName: string, raw: Record<string, unknown>): StoredItem => {
  if (typeName === LOG_ENTRIES_TYPE) {
    const data: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) if (!SYSTEM.has(k)) data[k] = v;
    const time = typeof raw.time === 'string' ? raw.time : new Date(0).toISOString();
    return {
      _id: itemIdOfSortKey(typeName, String(raw.sk)),
      _version: 1,
      createdAt: time,
      updatedAt: time,
      data,
      size: 0,
    };
  }
  const { _size, data, _hop, _quiet, _streamed, ...item } = DynadataItem.decode(raw);
  return {
    ...item,
    data: data ?? {},
    size: _size ?? 0,
    ...(_hop ? { hop: _hop } : {}),
    ...(_streamed ? { streamed: true } : {}),
  };
};

export const getStoredItem = async (
  companyId: string,
  typeName: string,
  id: string,
): Promise<StoredItem | undefined> => {
  const key = itemKey(companyId, typeName, id);
  if (!key) return undefined;
  const get = async (Key: Record<string, unknown>) =>
    (await ddb.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item;
  // A log entry written before the sharding is in the single partition until it expires.
  const Item =
    (await get(key)) ??
    (typeName === LOG_ENTRIES_TYPE
      ? await get({ pk: legacyLogEntryKey(companyId, 0, '').pk, sk: key.sk })
      : undefined);
  return Item ? toStoredItem(typeName, Item) : undefined;
};

/** The write conditions that come from the type: a custom type's version must still be the one validated. */
export interface TypeGuard {
  customTypeVersion?: number;
  /**
   * The schema change under check the write was also validated against (`token`), and whether the item fails
   * it (`breaks`: the write counts itself on the type, which then refuses the change). Absent: the write holds
   * only while no change is under check.
   */
  change?: { token: string; breaks: boolean };
  /** The type's indexed fields (`x-indexed`), in order: the n-th writes the keys of the n-th sort index. */
  indexedFields?: readonly string[];
  /** Log entries written through Dynadata (self-hosted switch) expire like shipped ones. */
  ttl?: number;
  /** The workflow hop of the write (stored on the item when above 0, for its change event). */
  hop?: number;
}

export class ItemWriteConflictError extends Error {
  constructor(readonly reason: 'item' | 'type') {
    super(reason === 'item' ? 'the item changed or does not exist' : 'the type changed');
    this.name = 'ItemWriteConflictError';
  }
}

const rawItem = (companyId: string, typeName: string, item: StoredItem, guard: TypeGuard) => {
  if (typeName === LOG_ENTRIES_TYPE) {
    const key = itemKey(companyId, typeName, item._id);
    return { ...key, entity: 'log_entry', ...(guard.ttl ? { ttl: guard.ttl } : {}), ...item.data };
  }
  const indexKeys: Record<string, string> = {};
  (guard.indexedFields ?? []).forEach((field, n) => {
    const value = indexValue(item.data[field]);
    const index = SORT_INDEXES[n];
    if (value === undefined || !index) return;
    indexKeys[index.partitionKey] = indexPartition(companyId, typeName);
    indexKeys[index.sortKey] = `${value}#${item._id}`;
  });
  return DynadataItem.item(
    DynadataItem.key(companyId, typeName, item._id),
    {
      _id: item._id,
      _version: item._version,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      _size: item.size,
      ...(guard.hop ? { _hop: guard.hop } : {}),
      ...(typeName === MESSAGES_TYPE ? {} : { _streamed: true }),
    },
    {
      // Tenant JSON is stored as a map whatever its member names (`asTenantMap`).
      data: asTenantMap(item.data),
      ...indexKeys,
      ...(typeName === MESSAGES_TYPE && item.data.status === 'queued'
        ? undeliveredMessageIndexKey(companyId, item._id)
        : {}),
      ...(typeName === MESSAGES_TYPE &&
      item.data.status === 'scheduled' &&
      typeof item.data.sendAt === 'string'
        ? scheduledMessageIndexKey(companyId, item._id, item.data.sendAt)
        : {}),
    },
  );
};

/** Maps a cancelled transaction to which condition failed (action 0 is always the item). */
const conflictOf = (error: unknown): ItemWriteConflictError | undefined => {
  const reasons = cancellationReasons(error);
  if (!reasons) return undefined;
  if (reasons[0]?.Code === 'ConditionalCheckFailed') return new ItemWriteConflictError('item');
  if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) return new ItemWriteConflictError('type');
  return undefined;
};

/**
 * Sends an item write's transaction through `sendTransaction` (which retries conflict-only cancellations).
 * A write refused by its type's counter because the type has none yet creates it and is sent once more.
 */
const transact = async (
  companyId: string,
  typeName: string,
  guard: TypeGuard,
  items: TransactItem[],
  conflict: (error: unknown) => Error | undefined = conflictOf,
): Promise<void> => {
  const send = async () => {
    try {
      await sendTransaction(new TransactWriteCommand({ TransactItems: items }));
    } catch (error) {
      throw conflict(error) ?? error;
    }
  };
  try {
    await send();
  } catch (error) {
    const onType =
      (error instanceof ItemWriteConflictError || error instanceof BatchWriteConflictError) &&
      error.reason === 'type';
    if (
      !onType ||
      typeName === LOG_ENTRIES_TYPE ||
      !(await migrateTypeCounter(
        companyId,
        typeName,
        dynadataTypeKey(companyId, typeName),
        guard.customTypeVersion !== undefined,
      ))
    )
      throw error;
    await send();
  }
};

/** The day item of a log entry written through Dynadata (so lists merge its day). */
const logDayItemOf = (companyId: string, item: StoredItem, guard: TypeGuard) => {
  const { ttl, ...day } = logDayItem(companyId, logDayOf(Number(item._id.slice(0, 15))), guard.ttl ?? 0);
  return guard.ttl ? { ...day, ttl } : day;
};

/** Inserts a new item (its `_id` must be new). */
export const insertItem = async (
  companyId: string,
  typeName: string,
  item: StoredItem,
  guard: TypeGuard,
  /** More items of the same transaction (a message's thread entry and its event). */
  also: TransactItem[] = [],
): Promise<void> => {
  const put = {
    TableName: tableName(),
    Item: rawItem(companyId, typeName, item, guard),
    ConditionExpression: 'attribute_not_exists(pk)',
  };
  await transact(companyId, typeName, guard, [
    { Put: put },
    ...(typeName === LOG_ENTRIES_TYPE
      ? [{ Put: { TableName: tableName(), Item: logDayItemOf(companyId, item, guard) } }]
      : countedFromStream(typeName)
        ? []
        : typeCounterWrite(companyId, typeName, { count: 1, bytes: item.size }, guard)),
    ...also,
  ]);
};

/** Replaces an item whose stored `_version` is still `previous._version`. */
export const replaceItem = async (
  companyId: string,
  typeName: string,
  previous: StoredItem,
  next: StoredItem,
  guard: TypeGuard,
  /** More items of the same transaction (the event a status change raises). */
  also: TransactItem[] = [],
): Promise<void> => {
  const put = {
    TableName: tableName(),
    Item: rawItem(companyId, typeName, next, guard),
    ConditionExpression: typeName === LOG_ENTRIES_TYPE ? 'attribute_exists(pk)' : '#v = :v',
    ...(typeName === LOG_ENTRIES_TYPE
      ? {}
      : {
          ExpressionAttributeNames: { '#v': '_version' },
          ExpressionAttributeValues: { ':v': previous._version },
        }),
  };
  await transact(companyId, typeName, guard, [
    { Put: put },
    ...(typeName === LOG_ENTRIES_TYPE || countedFromStream(typeName)
      ? []
      : typeCounterWrite(companyId, typeName, { count: 0, bytes: next.size - previous.size }, guard)),
    ...also,
  ]);
};

/** How an item's delete is marked for the stream (`removeItem`, `writeItemsAtomically`). */
export interface RemoveMark {
  /** The workflow hop of the delete (its change event carries it). */
  hop?: number;
  /** A bookkeeping delete (a deleting type's sweep): it raises no change event. */
  quiet?: boolean;
}

/**
 * The condition a delete holds besides the version: the item is marked `_streamed` and still carries the hop
 * of the delete (the `_hop` the stream's record of the delete shows), and its `_quiet` mark when quiet.
 */
const markCondition = (version: number, mark: RemoveMark) => ({
  ConditionExpression: [
    '#v = :v',
    '#streamed = :true',
    mark.hop ? '#hop = :hop' : 'attribute_not_exists(#hop)',
    ...(mark.quiet ? ['#quiet = :true'] : []),
  ].join(' AND '),
  ExpressionAttributeNames: {
    '#v': '_version',
    '#streamed': '_streamed',
    '#hop': '_hop',
    ...(mark.quiet ? { '#quiet': '_quiet' } : {}),
  },
  ExpressionAttributeValues: {
    ':v': version,
    ':true': true,
    ...(mark.hop ? { ':hop': mark.hop } : {}),
  },
});

/**
 * Before deleting an item of a type that raises change events, marks it with what the stream's record of the
 * delete must show (the record holds the item as it was): `_streamed` when it was written before change
 * events came from the stream, the delete's hop when the item holds another, and `_quiet` for a bookkeeping
 * delete. Nothing to write when the item already shows it (the common case: written since, hop 0, not quiet).
 * The mark leaves the item's `_version`, so the stream sees no change of the item in it. Like every write of
 * one item here, it goes through `transact`, which sends a single action as that plain write (0052).
 */
const markForRemoval = async (
  companyId: string,
  typeName: string,
  previous: StoredItem,
  mark: RemoveMark,
): Promise<void> => {
  if (typeName === LOG_ENTRIES_TYPE || typeName === MESSAGES_TYPE) return;
  if (previous.streamed && (previous.hop ?? 0) === (mark.hop ?? 0) && !mark.quiet) return;
  const set = {
    _streamed: true,
    ...(mark.hop ? { _hop: mark.hop } : {}),
    ...(mark.quiet ? { _quiet: true } : {}),
  };
  await transact(companyId, typeName, {}, [
    {
      Update: {
        TableName: tableName(),
        Key: itemKey(companyId, typeName, previous._id),
        ...updateParams<{ _hop: number; _quiet: boolean; _streamed: boolean }>(
          mark.hop ? { set } : { set, remove: ['_hop'] },
          {
            expression: '#v = :v',
            names: { '#v': '_version' },
            values: { ':v': previous._version },
          },
        ),
      },
    },
  ]);
};

/** Deletes an item whose stored `_version` is still `previous._version`. */
export const removeItem = async (
  companyId: string,
  typeName: string,
  previous: StoredItem,
  guard: TypeGuard,
  mark: RemoveMark = {},
): Promise<void> => {
  const key = itemKey(companyId, typeName, previous._id);
  // Deleting an item holds whatever the type became (a deleting type's items are deleted this way).
  const typeGuard = { ...guard, customTypeVersion: undefined, change: undefined };
  await markForRemoval(companyId, typeName, previous, mark);
  const remove = {
    TableName: tableName(),
    Key: key,
    ...(typeName === LOG_ENTRIES_TYPE
      ? { ConditionExpression: 'attribute_exists(pk)' }
      : typeName === MESSAGES_TYPE
        ? versionCondition(previous._version)
        : markCondition(previous._version, mark)),
  };
  await transact(companyId, typeName, typeGuard, [
    { Delete: remove },
    ...(typeName === LOG_ENTRIES_TYPE || countedFromStream(typeName)
      ? []
      : typeCounterWrite(companyId, typeName, { count: -1, bytes: -previous.size }, typeGuard)),
  ]);
};

/** One write of an atomic batch (`writeItemsAtomically`). */
export type ItemWrite =
  | { kind: 'insert'; item: StoredItem }
  | { kind: 'replace'; previous: StoredItem; next: StoredItem }
  | { kind: 'remove'; previous: StoredItem };

/** A batch write refused: the write at `index` (of the writes given) failed its condition, or the type did. */
export class BatchWriteConflictError extends Error {
  constructor(
    readonly reason: 'item' | 'type',
    readonly index: number,
  ) {
    super(reason === 'item' ? `write ${index}: the item changed or exists` : 'the type changed');
    this.name = 'BatchWriteConflictError';
  }
}

const versionCondition = (version: number) => ({
  ConditionExpression: '#v = :v',
  ExpressionAttributeNames: { '#v': '_version' },
  ExpressionAttributeValues: { ':v': version },
});

/**
 * Writes items of one custom or built-in type (not `log_entries`) all or none, in one transaction: each item
 * conditional on its absence (insert) or on the version read (replace, remove), then, for a type not counted
 * from the stream, one write of the type's counter (its count and bytes, carrying the type's conditions for
 * every write). A delete is marked with the batch's hop first when its item holds another (`markForRemoval`).
 * Callers keep the total within DynamoDB's 100 actions and 4 MB; each item at most once.
 */
export const writeItemsAtomically = async (
  companyId: string,
  typeName: string,
  writes: readonly ItemWrite[],
  guard: TypeGuard,
): Promise<void> => {
  let count = 0;
  let bytes = 0;
  const mark = { ...(guard.hop ? { hop: guard.hop } : {}) };
  for (const w of writes)
    if (w.kind === 'remove') await markForRemoval(companyId, typeName, w.previous, mark);
  const actions: TransactItem[] = writes.map((w) => {
    if (w.kind === 'insert') {
      count++;
      bytes += w.item.size;
      return {
        Put: {
          TableName: tableName(),
          Item: rawItem(companyId, typeName, w.item, guard),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    }
    if (w.kind === 'replace') {
      bytes += w.next.size - w.previous.size;
      return {
        Put: {
          TableName: tableName(),
          Item: rawItem(companyId, typeName, w.next, guard),
          ...versionCondition(w.previous._version),
        },
      };
    }
    count--;
    bytes -= w.previous.size;
    return {
      Delete: {
        TableName: tableName(),
        Key: itemKey(companyId, typeName, w.previous._id),
        ...(typeName === MESSAGES_TYPE
          ? versionCondition(w.previous._version)
          : markCondition(w.previous._version, mark)),
      },
    };
  });
  await transact(
    companyId,
    typeName,
    guard,
    [
      ...actions,
      ...(countedFromStream(typeName) ? [] : typeCounterWrite(companyId, typeName, { count, bytes }, guard)),
    ],
    (error) => {
      const failed = (cancellationReasons(error) ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      return failed < 0
        ? undefined
        : new BatchWriteConflictError(failed < writes.length ? 'item' : 'type', failed);
    },
  );
};
