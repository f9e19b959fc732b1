import type { ComputeMs } from '../../types/meters';
import type { TransactItem } from '../entity';
import { getStoredObject, recordStoredObjectItems, type StoredObject } from '../stored-objects';
import { cancellationReasons } from '../transactions';
import { applyChange } from '../update-expression';
import type { JobLifecycle } from './lifecycle';
import type { JobRecordBase, JobRef } from './record';
import type { JobChange } from './transition';

/**
 * The state table every job type shares, as named moves over a type's lifecycle (`lifecycle.ts`):
 *
 * | move             | from                          | to                    | also                                   |
 * | ---------------- | ----------------------------- | --------------------- | -------------------------------------- |
 * | create           | (none)                        | `pending`             | queue slot taken (cap), unfinished idx |
 * | createFinished   | (none)                        | `done` (reused)       | event                                  |
 * | advance          | given unfinished states       | an unfinished state   | lease, execution, progress             |
 * | progress         | the state itself              | the same state        | progress percent                       |
 * | complete         | given unfinished states       | `done`                | files, slot, settle mark; then reuse   |
 * | completeReused   | given unfinished states       | `done` (billed 0)     | slot released, settle mark             |
 * | fail             | any unfinished state          | `failed`              | slot released, settle mark             |
 * | cancel           | the observed unfinished state | `canceled`            | slot released, settle mark             |
 * | retry            | `failed`, `canceled`, no lease | `pending`, attempt+1 | queue slot taken (cap), unfinished idx |
 *
 * Every move is conditional on the status and on the attempt the writer observed, so of two racing writers
 * exactly one wins and the other gets `JobTransitionRefusedError`. Moves into a final state clear the lease
 * and set the settle mark, from which the event dispatcher raises the move's event and adds its usage and
 * storage bytes, once (`settle.ts`, decision 0065).
 * Units are billed in `billedSeconds` (the meter's unit: seconds, characters), named so for stored items.
 */
export const DONE = 'done';
export const FAILED = 'failed';
export const CANCELED = 'canceled';
export const PENDING = 'pending';

/** The attributes of a type's own record (what enqueue supplies besides the common ones). */
export type JobFields<R> = Omit<R, keyof JobRecordBase>;

export const jobMoves = <S extends string, R extends JobRecordBase<S>, E extends object>(
  store: JobLifecycle<S, R, E>,
) => {
  const status = (name: string) => name as S;

  /** A move between unfinished states of this attempt; the returned job is as DynamoDB wrote it. */
  const advance = (options: {
    job: JobRef;
    from: readonly S[];
    to: S;
    now: Date;
    leaseUntil?: Date;
    executionArn?: string;
    percent?: number;
    set?: Partial<JobFields<R>>;
  }): Promise<R> => {
    const { job, to, now } = options;
    return store.move(job, to, {
      from: options.from,
      change: {
        set: {
          ...options.set,
          // A move within one state (a renewed lease, what a step found) is no transition.
          ...(options.from.every((from) => from === to) ? {} : { status: to }),
          ...(options.leaseUntil ? { leaseUntil: options.leaseUntil.toISOString() } : {}),
          ...(options.executionArn ? { executionArn: options.executionArn } : {}),
          progress: { phase: to, ...(options.percent === undefined ? {} : { percent: options.percent }) },
          updatedAt: now.toISOString(),
        },
      },
    });
  };

  /** Progress of a running state (percent 0..100), only while the job of this attempt is still in it. */
  const progress = (options: { job: JobRef; phase: S; percent: number; now: Date }): Promise<R> =>
    store.move(options.job, options.phase, {
      from: [options.phase],
      change: {
        set: {
          progress: { phase: options.phase, percent: options.percent },
          updatedAt: options.now.toISOString(),
        },
      },
    });

  const doneSet = (set: Partial<JobFields<R>> | undefined, reused: boolean, billed: number) => ({
    ...set,
    reused,
    billedSeconds: billed,
    progress: { phase: DONE, percent: 100 },
  });

  /**
   * The move to `done` of worked-on job: records the output `files` as the company's stored objects and
   * writes `also`, all in the transaction of the move (so once per attempt, and nothing for a job canceled or
   * failed meanwhile); the billed `billedUnits` of the type's meter with the attempt's compute time, and the
   * files' bytes for the storage figure, go on the move's settle mark (the dispatcher adds them with the
   * move's event: decision 0065); then the reuse entry once the move committed (decision 0061). A file some
   * earlier write recorded already (a finalize of an earlier version recorded its output before the move)
   * refuses the transaction: the move is sent again without it, so it is neither recorded nor counted twice.
   */
  const complete = async (options: {
    job: JobRef;
    from: readonly S[];
    set?: Partial<JobFields<R>>;
    billedUnits: number;
    computeMs?: ComputeMs;
    reuse?: { key: string; entry: E };
    files?: readonly StoredObject[];
    also?: TransactItem[];
    now: Date;
  }): Promise<JobChange> => {
    const { job, files = [] } = options;
    const send = (recorded: readonly StoredObject[]) =>
      store.complete({
        job,
        done: status(DONE),
        from: options.from,
        change: { set: doneSet(options.set, false, options.billedUnits), remove: ['error'] },
        billedSeconds: options.billedUnits,
        now: options.now,
        ...(options.computeMs ? { computeMs: options.computeMs } : {}),
        ...(options.reuse ? { reuse: options.reuse } : {}),
        also: [...recordStoredObjectItems(job.companyId, recorded), ...(options.also ?? [])],
        storageBytes: recorded.reduce((sum, file) => sum + file.size, 0),
      });
    try {
      return await send(files);
    } catch (error) {
      // The job's own condition held (else the move is refused): was it a file recorded already?
      if (files.length === 0 || !cancellationReasons(error)) throw error;
      const stored = await Promise.all(files.map((f) => getStoredObject(job.companyId, f.fullPath)));
      const unrecorded = files.filter((_, i) => stored[i] === undefined);
      if (unrecorded.length === files.length) throw error;
      return send(unrecorded);
    }
  };

  /** The move to `done` with an earlier job's result (`set`), billing nothing. */
  const completeReused = (options: {
    job: JobRef;
    from: readonly S[];
    set: Partial<JobFields<R>>;
    now: Date;
  }): Promise<JobChange> =>
    store.finish({
      job: options.job,
      to: status(DONE),
      from: options.from,
      change: { set: doneSet(options.set, true, 0), remove: ['error'] },
      now: options.now,
    });

  /** Any unfinished state of this attempt → `failed` with an error code. */
  const fail = (options: { job: JobRef; error: { code: string; message: string }; now: Date }) =>
    store.fail({ ...options, failed: status(FAILED) });

  /** The tenant's cancel: from the observed unfinished state → `canceled`. Returns the job as canceled. */
  const cancel = async (job: R, now: Date): Promise<R> => {
    const change = await store.finish({
      job,
      to: status(CANCELED),
      from: [job.status],
      change: { set: {} },
      now,
    });
    return applyChange(job, change);
  };

  /** The tenant's retry: `failed|canceled` with no live lease → `pending` as attempt + 1, taking a slot. */
  const retry = (job: R, queueCap: number, now: Date): Promise<R> =>
    store.restart({
      job,
      from: [status(FAILED), status(CANCELED)],
      change: {
        set: {
          status: PENDING,
          attempt: job.attempt + 1,
          reused: false,
          billedSeconds: 0,
          progress: { phase: PENDING },
          updatedAt: now.toISOString(),
          attemptStartedAt: now.toISOString(),
        },
        remove: [...(store.config.resultFields ?? []), 'error', 'finishedAt', 'executionArn', 'leaseUntil'],
      },
      queueCap,
      now,
    });

  return { advance, progress, complete, completeReused, fail, cancel, retry };
};
