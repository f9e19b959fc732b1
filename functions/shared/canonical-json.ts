/**
 * A JSON value with the keys of every object sorted, so two bodies, filters or queries that differ only in
 * key order stringify (and hash) the same: idempotency fingerprints and list-cursor bindings use it.
 */
export const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
};
