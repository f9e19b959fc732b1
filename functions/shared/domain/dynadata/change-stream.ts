import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '../../data/client';
import { STREAM_COUNTED_TYPES } from '../../data/dynadata-items';
import { migrateTypeCounter, typeCounterWrite } from '../../data/dynadata-type-counters';
import { dynadataTypeKey } from '../../data/dynadata-types';
import type { TransactItem } from '../../data/entity';
import { eventItem } from '../../data/events';
import { cancellationReasons, sendTransaction } from '../../data/transactions';
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

/** DynamoDB's actions per transaction. */
const MAX_ACTIONS = 100;

const counterOf = (change: ItemChange) => `${change.companyId}#${change.typeName}`;

/** The changes in chunks: in order, within `MAX_ACTIONS` actions, one change per item at most in each. */
export const chunksOf = (changes: readonly ItemChange[], maxActions = MAX_ACTIONS): ItemChange[][] => {
  const chunks: ItemChange[][] = [];
  let chunk: ItemChange[] = [];
  let items = new Set<string>();
  let counters = new Set<string>();
  for (const change of changes) {
    const actions = chunk.length + counters.size + 1 + (counters.has(counterOf(change)) ? 0 : 1);
    if (chunk.length > 0 && (items.has(change.itemKey) || actions > maxActions)) {
      chunks.push(chunk);
      chunk = [];
      items = new Set();
      counters = new Set();
    }
    chunk.push(change);
    items.add(change.itemKey);
    counters.add(counterOf(change));
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
};

/** The chunk's transaction: its events, then one counter Update per (company, type) with the summed deltas. */
const chunkActions = (chunk: readonly ItemChange[]): { actions: TransactItem[]; counters: ItemChange[] } => {
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
  const counters = [...sums.values()].filter((c) => c.delta.count !== 0 || c.delta.bytes !== 0);
  return {
    actions: [
      ...chunk
        .map((change) => (change.event ? eventItem(change.event) : undefined))
        .filter((a) => a !== undefined),
      ...counters.flatMap((c) => typeCounterWrite(c.companyId, c.typeName, c.delta, {})),
    ],
    counters,
  };
};

/**
 * Writes one chunk of counted changes (each with its event): sent again without the changes whose event
 * exists, and once more after creating a missing counter.
 */
export const writeCountedChunk = async (chunk: readonly ItemChange[]): Promise<void> => {
  let live = chunk.filter((change) => change.event !== undefined);
  for (let attempt = 0; live.length > 0; attempt++) {
    const { actions, counters } = chunkActions(live);
    try {
      await sendTransaction(new TransactWriteCommand({ TransactItems: actions }));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons || attempt > chunk.length + 2) throw error;
      const failed = (i: number) => reasons[i]?.Code === 'ConditionalCheckFailed';
      const handled = new Set(live.map((_, i) => i).filter(failed));
      if (handled.size > 0) {
        live = live.filter((_, i) => !handled.has(i));
        continue;
      }
      const missing = counters.filter((_, i) => failed(live.length + i));
      if (missing.length === 0) throw error;
      for (const c of missing) {
        const key = dynadataTypeKey(c.companyId, c.typeName);
        if (!(await migrateTypeCounter(c.companyId, c.typeName, key, false))) throw error;
      }
    }
  }
};

/** Writes a custom type's change event once (the event found written: the record was handled before). */
const putEventOnce = async (change: ItemChange): Promise<void> => {
  if (!change.event) return;
  try {
    await ddb.send(new PutCommand(eventItem(change.event).Put));
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};

/** A change not written because an earlier counted change of the batch failed: it is handled again with it. */
export class ChangeHeldBackError extends Error {
  constructor() {
    super('an earlier change of the batch failed: handled again with it');
    this.name = 'ChangeHeldBackError';
  }
}

interface Waiting {
  change: ItemChange;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The writer of one stream batch's item changes: each call resolves when its change is written and rejects
 * when it must be handled again. Counted changes handed over together (the batch processor hands every
 * record over before any is handled) are gathered into chunks on the next turn of the event loop; once one
 * chunk fails, every later counted change of the batch fails too (they are handled again, in order).
 */
export const createItemChangeWriter = () => {
  const chains = new Map<string, Promise<void>>();
  let waiting: Waiting[] = [];
  let queued = false;
  let tail = Promise.resolve();
  let stopped = false;
  const flush = async (batch: Waiting[]) => {
    for (const chunk of chunksOf(batch.map((w) => w.change))) {
      const members = batch.filter((w) => chunk.includes(w.change));
      try {
        if (stopped) throw new ChangeHeldBackError();
        await writeCountedChunk(chunk);
        for (const w of members) w.resolve();
      } catch (error) {
        stopped = true;
        for (const w of members) w.reject(error);
      }
    }
  };
  return (change: ItemChange): Promise<void> => {
    if (STREAM_COUNTED_TYPES.includes(change.typeName)) {
      if (!change.event) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiting.push({ change, resolve, reject });
        if (queued) return;
        queued = true;
        setImmediate(() => {
          const batch = waiting;
          waiting = [];
          queued = false;
          tail = tail.then(() => flush(batch));
        });
      });
    }
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
