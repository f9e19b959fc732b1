import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { keepGetters } from '../lazy';
import * as zm from '../zod-mini';
import { tableName } from './client';
import { type Change, type Condition, type UpdateParams, updateParams } from './update-expression';

/**
 * What every stored thing declares once: its entity name (the `entity` attribute, permanent once items
 * exist), its key builder (prefixes from `keys.ts`) and its attributes as a schema. Reads decode through the
 * schema, so an item that does not match is an error naming the entity and the key, never a silent cast;
 * writes and transaction items are typed from the schema. `docs/decisions/0005-entity-layer.md` says why this
 * is our own small module and not ElectroDB or dynamodb-toolbox.
 *
 * The system attributes (`pk`, `sk`, the index attributes, `entity`, `ttl`) are not part of a schema: object
 * schemas drop members they do not declare, so a decoded record holds only its own attributes.
 */

/** One item of a `TransactWriteItems` call, as the document client takes it. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface TableKey {
  pk: string;
  sk: string;
}

/** A condition of a write: the expression and the names and values it refers to. */
export type { Condition } from './update-expression';

export class CorruptItemError extends Error {
  constructor(entity: string, key: string, problems: string) {
    super(`stored ${entity} item ${key} does not match its schema: ${problems}`);
    this.name = 'CorruptItemError';
  }
}

const keyText = (item: Record<string, unknown>): string => `(pk ${String(item.pk)}, sk ${String(item.sk)})`;

/** Decodes a stored item through `schema`; throws `CorruptItemError` naming the entity and the key. */
export const decodeItem = <S extends zm.ZodMiniType>(
  entity: string,
  schema: S,
  item: Record<string, unknown>,
): zm.output<S> => {
  const result = zm.safeParse(schema, item);
  if (result.success) return result.data;
  const problems = result.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`)
    .join('; ');
  throw new CorruptItemError(entity, keyText(item), problems);
};

/** The expression attributes of a condition, when it has any. */
export const conditionAttributes = (condition?: Condition) => ({
  ...(condition ? { ConditionExpression: condition.expression } : {}),
  ...(condition?.names ? { ExpressionAttributeNames: condition.names } : {}),
  ...(condition?.values && Object.keys(condition.values).length > 0
    ? { ExpressionAttributeValues: condition.values }
    : {}),
});

export interface EntityDefinition<A extends unknown[], S extends zm.ZodMiniType> {
  name: string;
  key: (...args: A) => TableKey;
  /**
   * The attributes' schema, declared as a getter (`get schema() { return zm.object(…); }`): built by its first
   * read (the first decode) and kept, so loading a data module builds no schema.
   */
  readonly schema: S;
  /**
   * The entity's place in an index (`IndexKey`), from its record (`undefined` while it is in none: a finished run
   * leaves the unfinished partition): `item` writes it, and an update that moves the entity in or out of the
   * index writes or removes it through `indexOf`, so no write function computes index attributes by hand.
   */
  index?: (record: zm.output<S>) => IndexKey | undefined;
}

/**
 * An item's attributes in an index: `gsi1` for listings of whole items, `work` for the sparse partitions of
 * unfinished work (`sparse-index.ts`).
 */
export type IndexKey = { gsi1pk: string; gsi1sk: string } | { workpk: string; worksk: string };

/** An item as stored: its record, its entity name, and the index and expiry attributes it may carry. */
export type StoredItem<S extends zm.ZodMiniType> = zm.output<S> & {
  entity?: string;
  gsi1pk?: string;
  gsi1sk?: string;
  workpk?: string;
  worksk?: string;
  ttl?: number;
};

export interface Entity<A extends unknown[], S extends zm.ZodMiniType> extends EntityDefinition<A, S> {
  /** The record of a stored item (throws `CorruptItemError` when it does not match the schema). */
  decode: (item: Record<string, unknown>) => zm.output<S>;
  /** The stored item of a record at `key` (with its entity name and any index or `ttl` attributes). */
  item: (key: TableKey, record: zm.output<S>, extra?: Record<string, unknown>) => Record<string, unknown>;
  /** The entity's index attributes for a record (none when the entity declares no index, or it is in none). */
  indexOf: (record: zm.output<S>) => IndexKey | Record<string, never>;
  /** The update expression of a change to the entity's fields (`update-expression.ts`), with its condition. */
  update: (change: Change<StoredItem<S>>, condition?: Condition) => UpdateParams;
}

export const defineEntity = <A extends unknown[], S extends zm.ZodMiniType>(
  definition: EntityDefinition<A, S>,
): Entity<A, S> => {
  const declared = keepGetters(definition, ['schema']);
  const indexOf = (record: zm.output<S>) => declared.index?.(record) ?? {};
  const item = (key: TableKey, record: zm.output<S>, extra: Record<string, unknown> = {}) => ({
    ...key,
    ...extra,
    ...indexOf(record),
    entity: declared.name,
    ...(record as Record<string, unknown>),
  });
  // Added to the declaration itself: a copy (a spread) would read, and so build, the schema.
  return Object.assign(declared, {
    decode: (stored: Record<string, unknown>) => decodeItem(declared.name, declared.schema, stored),
    item,
    indexOf,
    update: (change: Change<StoredItem<S>>, condition?: Condition) => updateParams(change, condition),
  });
};

/**
 * The transaction item writing `record` of `entity` at `key`, under `condition` when given. A function of
 * its own, not a member of the entity, so a bundle holds a `Put` item only where its code builds one (the
 * infra test derives a function's grants from the item kinds its bundle builds).
 */
export const putItem = <A extends unknown[], S extends zm.ZodMiniType>(
  entity: Entity<A, S>,
  key: TableKey,
  record: zm.output<S>,
  options: { extra?: Record<string, unknown>; condition?: Condition } = {},
): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: entity.item(key, record, options.extra),
    ...conditionAttributes(options.condition),
  },
});
