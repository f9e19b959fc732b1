import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from '../../data/entity';
import { cancellationReasons, sendTransaction } from '../../data/transactions';

/**
 * What the event dispatcher writes from the table's stream as events with summed figures: a change's event
 * (a Put conditional on its absence, so a record handled twice raises one event) and what it adds to shared
 * items (a type's counter, a usage month, the storage figure), written in one transaction per chunk of
 * changes, so each change is added once, with its event. Used by Dynadata changes counted from the stream
 * (decision 0063) and by jobs' final moves (decision 0065).
 *
 * - A chunk holds at most one change of an item (DynamoDB does not order a transaction's stream records, and
 *   the deliveries of a resource's events are in order) and at most one form of each summed item (a usage
 *   month's item is added to for one day at a time); chunks are written one after another, in the stream's
 *   order.
 * - A transaction cancelled because some events exist (their records were handled before) is sent again
 *   without exactly those changes.
 */

/** DynamoDB's actions per transaction. */
const MAX_ACTIONS = 100;

export interface ChunkKeys {
  /** The change's own resource: a chunk holds one change of it at most. */
  item: string;
  /** The items the change adds to, each in a form (changes adding to an item in one form share one action). */
  sums: readonly { item: string; form: string }[];
}

/** The changes in chunks: in order, within `maxActions` actions (an event each, an action per summed item). */
export const chunksOf = <T>(
  changes: readonly T[],
  keysOf: (change: T) => ChunkKeys,
  maxActions = MAX_ACTIONS,
): T[][] => {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let items = new Set<string>();
  let sums = new Map<string, string>();
  for (const change of changes) {
    const keys = keysOf(change);
    const added = new Set(keys.sums.filter((s) => !sums.has(s.item)).map((s) => s.item)).size;
    const clash =
      items.has(keys.item) || keys.sums.some((s) => sums.has(s.item) && sums.get(s.item) !== s.form);
    if (chunk.length > 0 && (clash || chunk.length + 1 + sums.size + added > maxActions)) {
      chunks.push(chunk);
      chunk = [];
      items = new Set();
      sums = new Map();
    }
    chunk.push(change);
    items.add(keys.item);
    for (const s of keys.sums) sums.set(s.item, s.form);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
};

/**
 * Writes one chunk: `actionsOf` gives the transaction of the live changes, their events first (one per
 * change, in order). Sent again without the changes whose event exists; any other refusal goes to
 * `recover`, which answers whether the chunk can be sent again (a missing counter created).
 */
export const writeEventChunk = async <T>(
  chunk: readonly T[],
  actionsOf: (live: readonly T[]) => TransactItem[],
  recover: (reasons: readonly { Code?: string }[], live: readonly T[]) => Promise<boolean> = async () =>
    false,
): Promise<void> => {
  let live = [...chunk];
  for (let attempt = 0; live.length > 0; attempt++) {
    try {
      await sendTransaction(new TransactWriteCommand({ TransactItems: actionsOf(live) }));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons || attempt > chunk.length + 2) throw error;
      const handled = new Set(
        live.map((_, i) => i).filter((i) => reasons[i]?.Code === 'ConditionalCheckFailed'),
      );
      if (handled.size > 0) live = live.filter((_, i) => !handled.has(i));
      else if (!(await recover(reasons, live))) throw error;
    }
  }
};

/** A change not written because an earlier change of the batch failed: it is handled again with it. */
export class ChangeHeldBackError extends Error {
  constructor() {
    super('an earlier change of the batch failed: handled again with it');
    this.name = 'ChangeHeldBackError';
  }
}

interface Waiting<T> {
  change: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The writer of one stream batch's chunked changes: each call resolves when its change is written and
 * rejects when it must be handled again. Changes handed over together (the batch processor hands every
 * record over before any is handled) are gathered into chunks on the next turn of the event loop; once one
 * chunk fails, every later change of the batch fails too (they are handled again, in order).
 */
export const createChunkWriter = <T>(
  keysOf: (change: T) => ChunkKeys,
  writeChunk: (chunk: readonly T[]) => Promise<void>,
) => {
  let waiting: Waiting<T>[] = [];
  let queued = false;
  let tail = Promise.resolve();
  let stopped = false;
  const flush = async (batch: Waiting<T>[]) => {
    for (const chunk of chunksOf(
      batch.map((w) => w.change),
      keysOf,
    )) {
      const members = batch.filter((w) => chunk.includes(w.change));
      try {
        if (stopped) throw new ChangeHeldBackError();
        await writeChunk(chunk);
        for (const w of members) w.resolve();
      } catch (error) {
        stopped = true;
        for (const w of members) w.reject(error);
      }
    }
  };
  return (change: T): Promise<void> =>
    new Promise<void>((resolve, reject) => {
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
};
