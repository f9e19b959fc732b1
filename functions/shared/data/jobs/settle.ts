import type { ComputeCategory, ComputeMs } from '../../types/meters';

/**
 * A job's settle mark (decision 0065): what a move into a final state leaves for the event dispatcher, which
 * reads it from the move's stream record and, once per move, raises the move's event and adds what the move
 * bills (a `done` move: the job's `billedSeconds` of the type's meter with the attempt's compute time, to the
 * usage month of the move; the output files' bytes, to the storage figure) in one transaction with that event
 * (`domain/jobs/settle-stream.ts`).
 *
 * - `_streamed: true` marks the move: the mark the dispatcher's event source filters on, as a Dynadata
 *   item's (decision 0063), so a final move written by the code before the mark (which wrote its event and
 *   usage itself) invokes nothing. A retry removes it, so a marked job in a final state is its attempt's
 *   settle.
 * - `_settle`, when the move adds figures, holds only what the job item does not: the attempt's compute time
 *   and the recorded outputs' bytes, under one-letter names, so the mark keeps a job item within the write
 *   unit it used (about 30 bytes). Never an empty map: DynamoDB Local's stream hands one over without its
 *   type, which reads as absent.
 *
 * Neither attribute is part of the job's record: reads decode the record's own attributes only.
 */
export const SETTLE_ATTRIBUTE = '_settle';
export const STREAMED_ATTRIBUTE = '_streamed';

export interface SettleMark {
  /** The attempt's compute time, billed with its units. */
  computeMs?: ComputeMs;
  /** Bytes of the output files the move recorded, for the storage figure. */
  storageBytes?: number;
}

/** Each compute category's one-letter name in the stored mark; `b` holds the bytes. */
const SHORT: Record<ComputeCategory, string> = { api: 'a', workers: 'w', media: 'm', workflows: 'f' };

/** The attributes a move into a final state sets. */
export const settleMark = (mark: SettleMark = {}) => {
  const stored: Record<string, number> = {};
  for (const [category, ms] of Object.entries(mark.computeMs ?? {}) as [ComputeCategory, number][])
    if (ms > 0) stored[SHORT[category]] = Math.round(ms);
  if (mark.storageBytes) stored.b = mark.storageBytes;
  return {
    [STREAMED_ATTRIBUTE]: true,
    ...(Object.keys(stored).length > 0 ? { [SETTLE_ATTRIBUTE]: stored } : {}),
  };
};

/** The mark of a job item's image, when it holds one. */
export const readSettleMark = (image: Record<string, unknown>): SettleMark | undefined => {
  if (image[STREAMED_ATTRIBUTE] !== true) return undefined;
  const stored = (image[SETTLE_ATTRIBUTE] ?? {}) as Record<string, unknown>;
  const computeMs: ComputeMs = {};
  for (const [category, short] of Object.entries(SHORT) as [ComputeCategory, string][])
    if (typeof stored[short] === 'number') computeMs[category] = stored[short];
  return {
    ...(Object.keys(computeMs).length > 0 ? { computeMs } : {}),
    ...(typeof stored.b === 'number' && stored.b > 0 ? { storageBytes: stored.b } : {}),
  };
};

/** What a move out of a final state (a retry) removes. */
export const SETTLE_REMOVE = [SETTLE_ATTRIBUTE, STREAMED_ATTRIBUTE] as const;
