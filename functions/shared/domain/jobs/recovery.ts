import { JobTransitionRefusedError } from '../../data/jobs/lifecycle';
import type { JobRecordBase } from '../../data/jobs/record';
import { interruptedError, type JobTypeDefinition } from './job-type';

/**
 * Crash recovery of every job type: the unfinished jobs of the type (the sparse index partition its moves
 * maintain, never a request path) whose executions are gone are moved to `failed` with `interrupted`
 * (lease cleared, queue slot released, the `failed` event raised, input files deleted), retryable by the tenant where the type
 * has retry. A job that moved on meanwhile (refused) is counted `moved`. Only a caller that knows the
 * executions are gone calls this (the local stack at start-up; on AWS executions are durable).
 */
export interface RecoveryCounts {
  failed: number;
  moved: number;
}

export const recoverUnfinishedJobs = async <
  S extends string,
  R extends JobRecordBase<S>,
  E extends object,
  V,
>(
  type: JobTypeDefinition<S, R, E, V>,
  now: Date,
): Promise<RecoveryCounts> => {
  const counts: RecoveryCounts = { failed: 0, moved: 0 };
  const error = interruptedError(type);
  for (const job of await type.lifecycle.listUnfinished()) {
    try {
      await type.moves.fail({ job, error, now });
      await type.deleteInput?.(job);
      counts.failed += 1;
    } catch (e) {
      if (!(e instanceof JobTransitionRefusedError)) throw e;
      counts.moved += 1;
    }
  }
  return counts;
};
