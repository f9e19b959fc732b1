import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';

type Key = { pk: string; sk: string };

/**
 * One item of a batch read: its key and the decoder of its entity. Entity modules export entries
 * (`companyEntry`, `usageTotalsEntry`, …) so a caller reads several entities at once and gets typed records.
 */
export interface BatchEntry<T> {
  key: Key;
  decode: (item: Record<string, unknown>) => T;
}

type Decoded<E extends readonly BatchEntry<unknown>[]> = {
  [I in keyof E]: E[I] extends BatchEntry<infer T> ? T | undefined : never;
};

/**
 * Reads items of several entities in one `BatchGetItem` (strongly consistent) and decodes each with its
 * entity's decoder, in the order of `entries`; `undefined` where an item does not exist. Keys DynamoDB leaves
 * unprocessed are asked again (bounded), so a throttled batch does not drop items.
 */
export const getItemsByKey = async <const E extends readonly BatchEntry<unknown>[]>(
  entries: E,
): Promise<Decoded<E>> => {
  const found = new Map<string, Record<string, unknown>>();
  const id = (k: Key) => `${k.pk}\u0000${k.sk}`;
  let pending: Key[] = entries.map((e) => e.key);
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 5) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
    if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 20));
    const { Responses, UnprocessedKeys } = await ddb.send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
    );
    for (const item of Responses?.[tableName()] ?? []) found.set(id(item as Key), item);
    pending = (UnprocessedKeys?.[tableName()]?.Keys ?? []) as Key[];
  }
  return entries.map((e) => {
    const item = found.get(id(e.key));
    return item === undefined ? undefined : e.decode(item);
  }) as Decoded<E>;
};
