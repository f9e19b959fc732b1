import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod-mini';
import { ddb, queryAll, tableName } from './client';
import { defineEntity, type TransactItem } from './entity';
import { partitions, sortKeys } from './keys';
import { cancellationReasons, sendTransaction } from './transactions';
import { updateParams } from './update-expression';

/**
 * A Dynadata type's counter item (`TYPECOUNT#<type>` in the company's `DDTYPE` partition): what every item
 * write of the type changes, so that a write pays for this small item and not for the type's record with its
 * whole schema (`docs/decisions/0049-dynadata-type-counter-item.md`). It holds the type's `itemCount`, the
 * `bytes` its item writes added (negative when they deleted items counted before the counter existed, whose
 * bytes are in the company's `TOTALS`), and, for a custom type, a copy of the record's `typeVersion` and
 * `changeToken` with the `changeBreaks` of the change under check: item writes are conditional on these, and
 * every change of the type (`dynadata-types.ts`) writes the record and its counter in one transaction.
 *
 * A type written before the counter existed has none: the first write or change of the type that finds it
 * missing creates it (`migrateTypeCounter`) from the record's `itemCount`, `typeVersion`, `changeToken` and
 * `changeBreaks`, removing the count and the breaks from the record, in one transaction conditional on the
 * record still holding what was read; then the write is sent again.
 */
export const TYPE_COUNTER_ENTITY = 'dd_type_counter';

export const typeCounterKey = (companyId: string, typeName: string) => ({
  pk: partitions.dynadataTypes(companyId),
  sk: sortKeys.typeCounter(typeName),
});

const TypeCounter = /* @__PURE__ */ defineEntity({
  name: TYPE_COUNTER_ENTITY,
  key: typeCounterKey,
  get schema() {
    return zm.object({
      itemCount: zm.optional(zm.number()),
      bytes: zm.optional(zm.number()),
      typeVersion: zm.optional(zm.number()),
      changeToken: zm.optional(zm.string()),
      changeBreaks: zm.optional(zm.number()),
    });
  },
});

export interface StoredTypeCounter {
  itemCount: number;
  bytes: number;
  typeVersion?: number;
  changeToken?: string;
  changeBreaks: number;
}

export const toTypeCounter = (raw: Record<string, unknown>): StoredTypeCounter => {
  const counter = TypeCounter.decode(raw);
  return {
    itemCount: counter.itemCount ?? 0,
    bytes: counter.bytes ?? 0,
    ...(counter.typeVersion === undefined ? {} : { typeVersion: counter.typeVersion }),
    ...(counter.changeToken === undefined ? {} : { changeToken: counter.changeToken }),
    changeBreaks: counter.changeBreaks ?? 0,
  };
};

export const isTypeCounter = (raw: Record<string, unknown>): boolean => raw.entity === TYPE_COUNTER_ENTITY;

const getRaw = async (Key: Record<string, unknown>) =>
  (await ddb.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item;

export const getTypeCounter = async (
  companyId: string,
  typeName: string,
): Promise<StoredTypeCounter | undefined> => {
  const raw = await getRaw(typeCounterKey(companyId, typeName));
  return raw ? toTypeCounter(raw) : undefined;
};

/** The bytes every counter item of the company holds (one query of the counters' key range). */
export const sumTypeCounterBytes = async (companyId: string): Promise<number> => {
  const counters = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :counters)',
    ExpressionAttributeValues: {
      ':pk': partitions.dynadataTypes(companyId),
      ':counters': sortKeys.typeCounter(''),
    },
  });
  return counters.reduce((sum, raw) => sum + toTypeCounter(raw).bytes, 0);
};

/** The conditions of an item write that come from its type (`TypeGuard` of `dynadata-items.ts`). */
export interface CounterGuard {
  customTypeVersion?: number;
  change?: { token: string; breaks: boolean };
}

/**
 * What the counter must hold for an item write: a custom type's version the write was validated against, and
 * the schema change under check it was also validated against, or none; a built-in type's counter must exist
 * (else its count is still on the record: `migrateTypeCounter`).
 */
const counterCondition = (guard: CounterGuard) => {
  if (guard.customTypeVersion === undefined) return { expression: 'attribute_exists(pk)' };
  return guard.change
    ? {
        expression: 'typeVersion = :tv AND changeToken = :ct',
        values: { ':tv': guard.customTypeVersion, ':ct': guard.change.token },
      }
    : {
        expression: 'typeVersion = :tv AND attribute_not_exists(changeToken)',
        values: { ':tv': guard.customTypeVersion },
      };
};

/**
 * The transaction items of an item write on its type's counter: the count and bytes it adds (an item the
 * change under check breaks counts itself in `changeBreaks`), under the type's conditions; a condition check
 * alone when it adds nothing to a custom type, nothing for a built-in type.
 */
export const typeCounterWrite = (
  companyId: string,
  typeName: string,
  delta: { count: number; bytes: number },
  guard: CounterGuard,
): TransactItem[] => {
  const condition = counterCondition(guard);
  const breaks = guard.change?.breaks ? 1 : undefined;
  const Key = typeCounterKey(companyId, typeName);
  if (delta.count === 0 && delta.bytes === 0 && !breaks) {
    if (guard.customTypeVersion === undefined) return [];
    return [
      {
        ConditionCheck: {
          TableName: tableName(),
          Key,
          ConditionExpression: condition.expression,
          ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
        },
      },
    ];
  }
  return [
    {
      Update: {
        TableName: tableName(),
        Key,
        ...TypeCounter.update(
          {
            add: { itemCount: delta.count, bytes: delta.bytes, changeBreaks: breaks },
            set: { entity: TYPE_COUNTER_ENTITY },
          },
          condition,
        ),
      },
    },
  ];
};

/** The counter's share of a change of a type (`dynadata-types.ts`): the change and what it is conditional on. */
export const typeCounterChange = (
  companyId: string,
  typeName: string,
  change: Parameters<typeof TypeCounter.update>[0],
  condition: Parameters<typeof TypeCounter.update>[1],
): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: typeCounterKey(companyId, typeName),
    ...TypeCounter.update(change, condition),
  },
});

/** The counter of a type being created: a fresh version 1, no change under check, the count it holds kept. */
export const newTypeCounter = (companyId: string, typeName: string): TransactItem =>
  typeCounterChange(
    companyId,
    typeName,
    {
      set: { entity: TYPE_COUNTER_ENTITY, typeVersion: 1 },
      add: { itemCount: 0, bytes: 0 },
      remove: ['changeToken', 'changeBreaks'],
    },
    undefined,
  );

const RECORD_FIELDS = ['itemCount', 'typeVersion', 'changeToken', 'changeBreaks'] as const;

/**
 * Creates the counter of a type that has none, from its record (`recordKey`): true when it was created (or
 * another request created it meanwhile: send the write again), false when the counter already existed (the
 * write's condition failed for another reason) or, for a custom type (`custom`), its record has no version.
 */
export const migrateTypeCounter = async (
  companyId: string,
  typeName: string,
  recordKey: { pk: string; sk: string },
  custom: boolean,
): Promise<boolean> => {
  const [counter, record] = await Promise.all([
    getRaw(typeCounterKey(companyId, typeName)),
    getRaw(recordKey),
  ]);
  if (counter) return false;
  if (custom && typeof record?.typeVersion !== 'number') return false;
  const held = Object.fromEntries(RECORD_FIELDS.map((field) => [field, record?.[field]]));
  const copied = Object.fromEntries(
    Object.entries(held).filter(([field, value]) => value !== undefined && field !== 'itemCount'),
  );
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  const unchanged = RECORD_FIELDS.map((field) => {
    names[`#${field}`] = field;
    if (held[field] === undefined) return `attribute_not_exists(#${field})`;
    values[`:${field}`] = held[field];
    return `#${field} = :${field}`;
  }).join(' AND ');
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: TypeCounter.item(typeCounterKey(companyId, typeName), {
          itemCount: typeof held.itemCount === 'number' ? held.itemCount : 0,
          bytes: 0,
          ...copied,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    record
      ? {
          Update: {
            TableName: tableName(),
            Key: recordKey,
            ...updateParams<Record<(typeof RECORD_FIELDS)[number], unknown>>(
              { remove: ['itemCount', 'changeBreaks'] },
              { expression: unchanged, names, values },
            ),
          },
        }
      : {
          ConditionCheck: {
            TableName: tableName(),
            Key: recordKey,
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
  ];
  try {
    await sendTransaction(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    // Another request created the counter or changed the record meanwhile: the write is sent again.
    if (!cancellationReasons(error)) throw error;
  }
  return true;
};
