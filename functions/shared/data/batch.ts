import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';

type Key = { pk: string; sk: string };

/**
 * Reads items of several entities in one `BatchGetItem` (strongly consistent), in the order of `keys`;
 * `undefined` where an item does not exist. Keys come from the entity modules' key builders. Keys DynamoDB
 * leaves unprocessed are asked again (bounded), so a throttled batch does not drop items.
 */
export const getItemsByKey = async (keys: Key[]): Promise<(Record<string, unknown> | undefined)[]> => {
  const found = new Map<string, Record<string, unknown>>();
  let pending: Key[] = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 5) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
    if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 20));
    const { Responses, UnprocessedKeys } = await ddb.send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
    );
    for (const item of Responses?.[tableName()] ?? []) found.set(`${item.pk}\u0000${item.sk}`, item);
    pending = (UnprocessedKeys?.[tableName()]?.Keys ?? []) as Key[];
  }
  return keys.map((k) => found.get(`${k.pk}\u0000${k.sk}`));
};
