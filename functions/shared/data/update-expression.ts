/**
 * What a write sets and removes, as one plain description used twice: to build the aliased `SET … REMOVE …`
 * expression of the write, and to compute the record after the write where DynamoDB cannot return it (the
 * updates of a transaction). Attribute names are always aliased (`#name`), so reserved words are safe.
 */
export interface Change {
  /** Attributes to set; `undefined` values are skipped. */
  set: Record<string, unknown>;
  remove?: readonly string[];
}

export interface UpdateExpression {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

export const updateExpression = ({ set, remove = [] }: Change): UpdateExpression => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  for (const [name, value] of Object.entries(set)) {
    if (value === undefined) continue;
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  for (const name of remove) names[`#${name}`] = name;
  const clauses = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    remove.length ? `REMOVE ${remove.map((name) => `#${name}`).join(', ')}` : '',
  ];
  return { expression: clauses.filter(Boolean).join(' '), names, values };
};

/** The record as the write described by `change` leaves it. */
export const applyChange = <T extends object>(record: T, { set, remove = [] }: Change): T => {
  const next = { ...record } as Record<string, unknown>;
  for (const name of remove) delete next[name];
  for (const [name, value] of Object.entries(set)) if (value !== undefined) next[name] = value;
  return next as T;
};
