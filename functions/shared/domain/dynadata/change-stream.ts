import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../../data/client';
import { STREAM_COUNTED_TYPES } from '../../data/dynadata-items';
import { migrateTypeCounter, typeCounterWrite } from '../../data/dynadata-type-counters';
import { dynadataTypeKey } from '../../data/dynadata-types';
import type { TransactItem } from '../../data/entity';
import { type EventInput, eventItem } from '../../data/events';
import {
  ChangeHeldBackError,
  type ChunkKeys,
  chunksOf as chunksOfKeys,
  createChunkWriter,
  writeEventChunk,
} from '../events/stream-chunks';
import type { ItemChange } from './change-events';

/**
 * The event dispatcher's writes of Dynadata item changes, from the table's stream (`change-events.ts` makes
 * each change; `docs/decisions/0063-dynadata-change-events-from-the-stream.md`):
 *
 * - A custom type's change (its count is already on its counter, from the request's transaction): its event,
 *   a plain Put conditional on its absence (a record handled twice raises one event). The changes of one item
 *   are written one after another, in the stream's order.
 * - A change of a type counted from the stream (`contacts`): its event and its count together, one
 *   transaction per chunk of changes: the events' Puts, each conditional on its absence, and one Update per
 *   (company, type) of the counter adding the chunk's summed count and bytes. A transaction cancelled because
 *   events exist (their records were handled before) is sent again without those changes, so each change is
 *   counted once; a counter still missing (a type from before counters) is created first
 *   (`migrateTypeCounter`). A chunk never holds two changes of one item (DynamoDB does not order a
 *   transaction's stream records, and the deliveries of an item's events are in order), and the chunks are
 *   written one after another in the stream's order.
 */

const counterOf = (change: ItemChange) => `${change.companyId}#${change.typeName}`;

/** A counted change's chunk keys: its item, and its type's counter. */
const keysOf = (change: ItemChange): ChunkKeys => ({
  item: change.itemKey,
  sums: [{ item: counterOf(change), form: '' }],
});

/** The changes in chunks (`events/stream-chunks.ts`): in order, one change per item at most in each. */
export const chunksOf = (changes: readonly ItemChange[], maxActions?: number): ItemChange[][] =>
  chunksOfKeys(changes, keysOf, maxActions);

/** The counters of a chunk: one per (company, type) with the summed deltas, where they add anything. */
const countersOf = (chunk: readonly ItemChange[]): ItemChange[] => {
  const sums = new Map<string, ItemChange>();
  for (const change of chunk) {
    const sum = sums.get(counterOf(change));
    if (sum)
      sums.set(counterOf(change), {
        ...sum,
        delta: { count: sum.delta.count + change.delta.count, bytes: sum.delta.bytes + change.delta.bytes },
      });
    else sums.set(counterOf(change), change);
  }
  return [...sums.values()].filter((c) => c.delta.count !== 0 || c.delta.bytes !== 0);
};

/** The chunk's transaction: its events, then one counter Update per (company, type) with the summed deltas. */
const chunkActions = (chunk: readonly ItemChange[]): TransactItem[] => [
  ...chunk.map((change) => eventItem(change.event as EventInput)),
  ...countersOf(chunk).flatMap((c) => typeCounterWrite(c.companyId, c.typeName, c.delta, {})),
];

/**
 * Writes one chunk of counted changes (each with its event): sent again without the changes whose event
 * exists, and once more after creating a missing counter.
 */
export const writeCountedChunk = (chunk: readonly ItemChange[]): Promise<void> =>
  writeEventChunk(
    chunk.filter((change) => change.event !== undefined),
    chunkActions,
    async (reasons, live) => {
      const missing = countersOf(live).filter(
        (_, i) => reasons[live.length + i]?.Code === 'ConditionalCheckFailed',
      );
      if (missing.length === 0) return false;
      for (const c of missing) {
        const key = dynadataTypeKey(c.companyId, c.typeName);
        if (!(await migrateTypeCounter(c.companyId, c.typeName, key, false))) return false;
      }
      return true;
    },
  );

/** Writes a custom type's change event once (the event found written: the record was handled before). */
const putEventOnce = async (change: ItemChange): Promise<void> => {
  if (!change.event) return;
  try {
    await ddb.send(new PutCommand(eventItem(change.event).Put));
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};

/**
 * The writer of one stream batch's item changes: each call resolves when its change is written and rejects
 * when it must be handled again. Counted changes go in chunks (`events/stream-chunks.ts`); a custom type's
 * events are put one after another per item, and one that failed holds its item's later changes back.
 */
export const createItemChangeWriter = () => {
  const chains = new Map<string, Promise<void>>();
  const writeCounted = createChunkWriter(keysOf, writeCountedChunk);
  return (change: ItemChange): Promise<void> => {
    if (STREAM_COUNTED_TYPES.includes(change.typeName))
      return change.event ? writeCounted(change) : Promise.resolve();
    const previous = chains.get(change.itemKey) ?? Promise.resolve();
    const written = previous.then(
      () => putEventOnce(change),
      () => {
        throw new ChangeHeldBackError();
      },
    );
    chains.set(change.itemKey, written);
    return written;
  };
};
