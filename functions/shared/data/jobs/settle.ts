import type { UsageAdditions } from '../usage-families';

/**
 * A job's settle mark (decision 0065): what a move into a final state leaves for the event dispatcher, which
 * reads it from the move's stream record and, once per attempt, raises the move's event and adds the mark's
 * figures (the billed meter with its compute time to the usage month of the move, the output files' bytes to
 * the storage figure) in one transaction with that event (`domain/jobs/settle-stream.ts`).
 *
 * - `_settle` names the attempt it settles: a later write of the same job (a retry removes the mark) never
 *   settles it again, and the event's id is derived from the job, the attempt and the final status.
 * - `_streamed` is the mark the dispatcher's event source filters on, as a Dynadata item's (decision 0063):
 *   a final move written by the code before the mark (which wrote its event and usage itself) invokes
 *   nothing.
 *
 * Neither attribute is part of the job's record: reads decode the record's own attributes only.
 */
export const SETTLE_ATTRIBUTE = '_settle';
export const STREAMED_ATTRIBUTE = '_streamed';

export interface SettleMark {
  attempt: number;
  /** The figures the move bills (the type's meter and the attempt's compute time). */
  usage?: UsageAdditions;
  /** Bytes of the output files the move recorded, for the storage figure. */
  storageBytes?: number;
}

/** The attributes a move into a final state sets. */
export const settleMark = (attempt: number, figures: Omit<SettleMark, 'attempt'> = {}) => ({
  [SETTLE_ATTRIBUTE]: { attempt, ...figures } satisfies SettleMark,
  [STREAMED_ATTRIBUTE]: true,
});

/** What a move out of a final state (a retry) removes. */
export const SETTLE_REMOVE = [SETTLE_ATTRIBUTE, STREAMED_ATTRIBUTE] as const;
