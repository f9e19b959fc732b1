/**
 * The one way an item is updated: a `Change` keyed by the fields of the item it writes (`T`, the entity's
 * record and the index attributes it carries), so a misspelt field does not compile, turned into the update
 * expression here and nowhere else (`test/unit/update-expressions.test.ts` finds any other). The same
 * description also computes the record after the write where DynamoDB cannot return it (the updates of a
 * transaction: `applyChange`). Every attribute name is aliased (`#name`; `#field0` for a name that is not a
 * plain identifier), so reserved words are safe and a condition may use the same alias; the values take
 * placeholders of their own (`:set0`, `:add0`), apart from those of the write's condition.
 */

/** A value written only where the item does not hold the attribute yet (`if_not_exists`). */
export interface IfAbsent<V> {
  readonly ifAbsent: V;
}

export const ifAbsent = <V>(value: V): IfAbsent<V> => ({ ifAbsent: value });

/** What a write sets, adds to and removes. `undefined` values are skipped. */
export interface Change<T extends object = Record<string, unknown>> {
  set?: { [K in keyof T]?: T[K] | IfAbsent<T[K]> | undefined };
  /** Numbers added to numeric attributes (an absent one counts from 0). */
  add?: { [K in keyof T]?: number | undefined };
  remove?: readonly (keyof T & string)[];
}

/** The condition a write makes, with the names and values it uses. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** The members of an `UpdateItem` (or a transaction's `Update`) that describe the change and its condition. */
export interface UpdateParams {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

const isIfAbsent = (value: unknown): value is IfAbsent<unknown> =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 1 && 'ifAbsent' in value;

const defined = (entries: Record<string, unknown> | undefined): [string, unknown][] =>
  Object.entries(entries ?? {}).filter(([, value]) => value !== undefined);

export const updateParams = <T extends object>(change: Change<T>, condition?: Condition): UpdateParams => {
  const names: Record<string, string> = { ...(condition?.names ?? {}) };
  const values: Record<string, unknown> = { ...(condition?.values ?? {}) };
  const others: string[] = [];
  const alias = (field: string): string => {
    // A field that is not a plain name (`compute_ms#workflows`) takes a numbered placeholder of its own.
    const plain = /^[A-Za-z_][A-Za-z0-9_]*$/.test(field);
    if (!plain && !others.includes(field)) others.push(field);
    const placeholder = plain ? `#${field}` : `#field${others.indexOf(field)}`;
    if (names[placeholder] !== undefined && names[placeholder] !== field) {
      throw new Error(`the condition names ${placeholder} another attribute than ${field}`);
    }
    names[placeholder] = field;
    return placeholder;
  };
  const sets = defined(change.set).map(([field, value], i) => {
    const name = alias(field);
    values[`:set${i}`] = isIfAbsent(value) ? value.ifAbsent : value;
    return isIfAbsent(value) ? `${name} = if_not_exists(${name}, :set${i})` : `${name} = :set${i}`;
  });
  const adds = defined(change.add).map(([field, value], i) => {
    values[`:add${i}`] = value;
    return `${alias(field)} :add${i}`;
  });
  const removes = (change.remove ?? []).map((field) => alias(field));
  const clauses = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    adds.length ? `ADD ${adds.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ].filter(Boolean);
  if (clauses.length === 0) throw new Error('an update changes something');
  return {
    UpdateExpression: clauses.join(' '),
    ...(condition ? { ConditionExpression: condition.expression } : {}),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
};

/** The record as the write described by `change` leaves it. */
export const applyChange = <T extends object>(record: T, change: Change<Record<string, unknown>>): T => {
  const next = { ...record } as Record<string, unknown>;
  for (const name of change.remove ?? []) delete next[name];
  for (const [name, value] of defined(change.set)) {
    if (!isIfAbsent(value)) next[name] = value;
    else if (next[name] === undefined) next[name] = value.ifAbsent;
  }
  for (const [name, value] of defined(change.add))
    next[name] = ((next[name] as number) ?? 0) + (value as number);
  return next as T;
};
