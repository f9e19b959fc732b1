import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../observability/logger';
import { countBilledUnits, countJobTransition } from '../../observability/metrics';
import type { ComputeMs } from '../../types/meters';
import type { BatchEntry } from '../batch';
import { ddb, isConditionalCheckFailed, tableName } from '../client';
import { decodeItem, type TransactItem } from '../entity';
import { sortKeys, unfinishedSortKey } from '../keys';
import { packJsonValue, readPacked } from '../packed-json';
import { jobQueue } from '../schemas';
import { INDEX_ATTRIBUTES, listSparsePartition, sparseIndexKey } from '../sparse-index';
import { cancellationReasons, sendTransaction } from '../transactions';
import { applyChange, updateParams } from '../update-expression';
import {
  type JobLifecycleConfig,
  JobQueueFullError,
  JobTransitionRefusedError,
  type MoveOptions,
} from './config';
import type { JobRecordBase, JobRef } from './record';
import { SETTLE_ATTRIBUTE, SETTLE_REMOVE, type SettleMark, settleMark } from './settle';
import { type JobChange, jobTransitionUpdate } from './transition';

export {
  type JobLifecycleConfig,
  JobQueueFullError,
  type JobStoreConfig,
  JobTransitionRefusedError,
  type MoveOptions,
} from './config';
/**
 * The lifecycle every job type shares, configured once per type (`createJobLifecycle`):
 * - the job item `JOB#<jobId>` of the company's partition of the type, where every state change is a
 *   conditional write on the current status and attempt (`transition.ts`), so races between the tenant
 *   and the workers resolve to exactly one legal transition;
 * - the worker lease (`leaseUntil`), taken by the moves between unfinished states and cleared by every move
 *   into a final state;
 * - the company's queue item `QUEUE` counting its unfinished jobs, changed only in the same transaction as a
 *   job's move into or out of the unfinished states (a slot is taken conditionally on the plan's cap);
 * - billing: the move to `done` records the units it bills (`billedSeconds`) and, on the job's settle mark,
 *   the attempt's compute time; the event dispatcher adds both to the usage month from the table's stream
 *   (`settle.ts`, decision 0065); the reuse entry `REUSE#<key>` of the result is put once that move
 *   committed, so only a finished job is ever reused (decision 0061);
 * - the sparse index partition of unfinished jobs (interrupted-job recovery at local start-up, sweeps);
 * - progress, recorded on the job by the moves;
 * - one EMF count per written transition and the billed units;
 * - the event of a move into a final state (the store's `eventTypes`): raised by the event dispatcher from
 *   the stream record of the move, which carries the settle mark (`settle.ts`): the job's view after the
 *   move, from the record as written.
 */
export { type JobRecordBase, type JobRef, jobRecordFields } from './record';

/**
 * The `result` of a reuse entry as stored: packed (binary) once long (`packed-json.ts`: a transcript with its
 * words is several KB of JSON), so the `done` move writing it bills a few KB instead of ten. The types'
 * reuse schemas describe the entry read back (`unpackResult`); entries written before hold a map. The job
 * item keeps its result as a map: its GET route answers the result in the order the table keeps a map's
 * members, which a packed copy would not (docs/decisions/0053-packed-json-attributes.md).
 */
const packResult = <T extends object>(record: T): T =>
  'result' in record && record.result !== undefined
    ? { ...record, result: packJsonValue(record.result) }
    : record;

/** The stored entry with its `result` as written (a map), whichever form it was stored in. */
const unpackResult = (item: Record<string, unknown>): Record<string, unknown> =>
  item.result instanceof Uint8Array ? { ...item, result: readPacked(item.result) } : item;

/**
 * The bound of a company's queue, as the condition of taking a slot under `cap`: a counter never written
 * holds 0 jobs, which only a cap of at least 1 admits (a comparison with a missing attribute is false, so a
 * cap of 0 or less refuses every job).
 */
/** A company's queue item of a job type: its count of unfinished jobs. */
interface QueueItem {
  entity: string;
  unfinished: number;
}

export const queueSlotCondition = (cap: number): string =>
  cap >= 1 ? 'attribute_not_exists(unfinished) OR unfinished < :cap' : 'unfinished < :cap';

/** Cancellation code of the transaction item at `index`, when `error` is a cancelled transaction. */
const cancellationCode = (error: unknown, index: number): string | undefined =>
  cancellationReasons(error)?.[index]?.Code;

export const createJobLifecycle = <S extends string, R extends JobRecordBase<S>, E extends object = object>(
  config: JobLifecycleConfig<S, R, E>,
) => {
  const { jobType, partition, entities, unfinishedIndexPartition } = config;
  const jobKey = (companyId: string, jobId: string) => ({
    pk: partition(companyId),
    sk: sortKeys.job(jobId),
  });
  const queueKey = (companyId: string) => ({ pk: partition(companyId), sk: sortKeys.jobQueue });
  const reuseKey = (companyId: string, key: string) => ({
    pk: partition(companyId),
    sk: sortKeys.reuse(key),
  });
  const unfinishedIndexKey = (companyId: string, jobId: string) =>
    sparseIndexKey(unfinishedIndexPartition, unfinishedSortKey(companyId, jobId));

  const toJob = (item: Record<string, unknown>): R => decodeItem(entities.job, config.schemas.job(), item);
  const toReuse = (item: Record<string, unknown>): E =>
    decodeItem(entities.reuse, config.schemas.reuse(), unpackResult(item));

  const countTransition = (job: JobRef, to: string, code?: string) =>
    countJobTransition(jobType, to, code, { companyId: job.companyId, jobId: job.jobId });

  const refused = (job: JobRef, to: string) => new JobTransitionRefusedError(jobType, job.jobId, to);
  const queueFull = () => new JobQueueFullError(jobType);

  const takeQueueSlotItem = (companyId: string, cap: number) => ({
    Update: {
      TableName: tableName(),
      Key: queueKey(companyId),
      ...updateParams<QueueItem>(
        { add: { unfinished: 1 }, set: { entity: entities.queue } },
        { expression: queueSlotCondition(cap), values: { ':cap': cap } },
      ),
    },
  });

  const releaseQueueSlotItem = (companyId: string) => ({
    Update: {
      TableName: tableName(),
      Key: queueKey(companyId),
      ...updateParams<QueueItem>({ add: { unfinished: -1 }, set: { entity: entities.queue } }),
    },
  });

  const jobUpdate = (job: JobRef, move: MoveOptions<S>, index?: 'add' | 'remove') =>
    jobTransitionUpdate({
      key: jobKey(job.companyId, job.jobId),
      from: move.from,
      attempt: job.attempt,
      change: {
        set: { ...move.change.set, ...(index === 'add' ? unfinishedIndexKey(job.companyId, job.jobId) : {}) },
        remove: [...(move.change.remove ?? []), ...(index === 'remove' ? INDEX_ATTRIBUTES : [])],
      },
      ...(move.condition ? { condition: move.condition } : {}),
    });

  const getJob = async (companyId: string, jobId: string): Promise<R | undefined> => {
    const { Item } = await ddb.send(
      new GetCommand({ TableName: tableName(), Key: jobKey(companyId, jobId), ConsistentRead: true }),
    );
    return Item ? toJob(Item) : undefined;
  };

  /** Writes a new `pending` job and takes one queue slot in one transaction; a full queue writes nothing. */
  const createJob = async (job: R, queueCap: number): Promise<void> => {
    const put = {
      Put: {
        TableName: tableName(),
        Item: {
          ...jobKey(job.companyId, job.jobId),
          ...unfinishedIndexKey(job.companyId, job.jobId),
          entity: entities.job,
          ...job,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    try {
      await sendTransaction(
        new TransactWriteCommand({ TransactItems: [put, takeQueueSlotItem(job.companyId, queueCap)] }),
      );
    } catch (error) {
      if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw queueFull();
      throw error;
    }
    countTransition(job, job.status);
  };

  /**
   * Writes a job that is final from the start (an identical finished job's result reused at enqueue, billed
   * 0): no queue slot, no unfinished index; its event is raised from the stream (its settle mark).
   */
  const createFinished = async (job: R): Promise<void> => {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...jobKey(job.companyId, job.jobId),
          entity: entities.job,
          ...job,
          ...settleMark(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    countTransition(job, job.status);
  };

  /** A move between unfinished states: one conditional `UpdateItem`, returning the job after the write. */
  const move = async (job: JobRef, to: S, options: MoveOptions<S>): Promise<R> => {
    try {
      const { Attributes } = await ddb.send(
        new UpdateCommand({ ...jobUpdate(job, options), ReturnValues: 'ALL_NEW' }),
      );
      if (options.change.set.status === to) countTransition(job, to);
      return toJob({ ...jobKey(job.companyId, job.jobId), ...Attributes });
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw refused(job, to);
      throw error;
    }
  };

  /**
   * A move into a final state: the job's conditional update (clearing the lease, leaving the unfinished
   * index, and setting its settle mark: what the dispatcher adds from the stream with the move's event), the
   * release of its queue slot and the `also` items, in one transaction. Only one such move can succeed per
   * attempt, so whatever `also` writes is written once per attempt. Returns the change made (without the
   * mark, which no read shows).
   */
  const finish = async (options: {
    job: JobRef;
    to: S;
    from: readonly S[];
    change: JobChange;
    now: Date;
    also?: TransactItem[];
    /** What the dispatcher adds once the move committed (compute time, storage bytes). */
    settle?: SettleMark;
  }): Promise<JobChange> => {
    const { job, to, now } = options;
    const change: JobChange = {
      set: { ...options.change.set, status: to, updatedAt: now.toISOString(), finishedAt: now.toISOString() },
      remove: [...(options.change.remove ?? []), 'leaseUntil'],
    };
    // The mark is this move's alone: a move without figures removes any `_settle` an earlier attempt left (a
    // retry of the code before the mark keeps it).
    const mark = settleMark(options.settle);
    const marked = {
      set: { ...change.set, ...mark },
      remove: [...(change.remove ?? []), ...(SETTLE_ATTRIBUTE in mark ? [] : [SETTLE_ATTRIBUTE])],
    };
    const update = jobUpdate(job, { from: options.from, change: marked }, 'remove');
    try {
      await sendTransaction(
        new TransactWriteCommand({
          TransactItems: [{ Update: update }, releaseQueueSlotItem(job.companyId), ...(options.also ?? [])],
        }),
      );
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw refused(job, to);
      throw error;
    }
    countTransition(job, to, (options.change.set.error as { code?: string } | undefined)?.code);
    return change;
  };

  /**
   * Writes the reuse entry `REUSE#<key>` with a plain `PutItem`, made
   * after the move to `done` committed. The entry is the same whoever writes it (its key is the content and
   * the preset, its value the finished attempt's result), so writing it twice changes nothing.
   */
  const putReuse = (companyId: string, key: string, entry: E) =>
    ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...reuseKey(companyId, key), entity: entities.reuse, ...packResult(entry) },
      }),
    );

  /**
   * The move to `done`: bills `billedSeconds` on the type's meter with the attempt's compute time
   * (`computeMs`: worker steps, media engine) through the move's settle mark, which the dispatcher adds to
   * the usage month with the move's event, once (decision 0065); the job records `billedSeconds` itself. The
   * move is conditional on the attempt being unfinished, so a job is billed once; a reused result (0 seconds)
   * bills no compute either. The reuse entry (`reuse`) is written once the move committed, on its own at half
   * the units (decision 0061): it points only at a finished attempt, and a crash between the two loses that
   * one reuse (a later identical job converts again), no promise.
   */
  const complete = async (options: {
    job: JobRef;
    done: S;
    from: readonly S[];
    change: JobChange;
    billedSeconds: number;
    computeMs?: ComputeMs;
    reuse?: { key: string; entry: E };
    also?: TransactItem[];
    storageBytes?: number;
    now: Date;
  }): Promise<JobChange> => {
    const { job, billedSeconds, reuse, now } = options;
    const change = await finish({
      job,
      to: options.done,
      from: options.from,
      // The job records the units it bills: the dispatcher bills them from its settled record.
      change: { ...options.change, set: { ...options.change.set, billedSeconds } },
      now,
      also: options.also ?? [],
      // The units are the job's own `billedSeconds` (the change sets them); a reused result bills no compute.
      settle: {
        ...(billedSeconds > 0 && options.computeMs ? { computeMs: options.computeMs } : {}),
        ...(options.storageBytes ? { storageBytes: options.storageBytes } : {}),
      },
    });
    countBilledUnits(config.meter, billedSeconds, { companyId: job.companyId, jobId: job.jobId });
    if (reuse)
      // The job is done whatever happens here: a refused or throttled put only loses this reuse.
      await putReuse(job.companyId, reuse.key, reuse.entry).catch((error: unknown) =>
        logger.warn(`${jobType} reuse entry not written`, { jobId: job.jobId, error }),
      );
    return change;
  };

  /** Any unfinished state of this attempt → `failed` with an error code; clears the lease and progress. */
  const fail = (options: { job: JobRef; failed: S; error: { code: string; message: string }; now: Date }) =>
    finish({
      job: options.job,
      to: options.failed,
      from: config.unfinished,
      change: { set: { error: options.error }, remove: ['progress'] },
      now: options.now,
    });

  /**
   * A tenant's move of a finished job back to `pending` as attempt + 1, taking a queue slot (conditional on
   * the cap) in the same transaction. Returns the job as retried.
   */
  const restart = async (options: {
    job: R;
    from: readonly S[];
    change: JobChange;
    queueCap: number;
    now: Date;
  }): Promise<R> => {
    const { job, change, queueCap, now } = options;
    const update = jobUpdate(
      job,
      {
        from: options.from,
        change: { set: change.set, remove: [...(change.remove ?? []), ...SETTLE_REMOVE] },
        condition: {
          expression: '(attribute_not_exists(leaseUntil) OR leaseUntil <= :now)',
          values: { ':now': now.toISOString() },
        },
      },
      'add',
    );
    try {
      await sendTransaction(
        new TransactWriteCommand({
          TransactItems: [{ Update: update }, takeQueueSlotItem(job.companyId, queueCap)],
        }),
      );
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed')
        throw refused(job, String(change.set.status));
      if (cancellationCode(error, 1) === 'ConditionalCheckFailed') throw queueFull();
      throw error;
    }
    countTransition(job, String(change.set.status));
    return applyChange(job, change);
  };

  const getReuse = async (companyId: string, key: string): Promise<E | undefined> => {
    const { Item } = await ddb.send(
      new GetCommand({ TableName: tableName(), Key: reuseKey(companyId, key) }),
    );
    return Item ? toReuse(Item) : undefined;
  };

  /** Number of unfinished jobs the queue counter holds (0 when it was never written). */
  const readQueue = async (companyId: string): Promise<number> => {
    const { Item } = await ddb.send(
      new GetCommand({ TableName: tableName(), Key: queueKey(companyId), ConsistentRead: true }),
    );
    return Item ? (decodeItem(entities.queue, jobQueue(), Item).unfinished ?? 0) : 0;
  };

  /** Unfinished jobs of every company, from the sparse index partition (never a request path). */
  const listUnfinished = async (): Promise<R[]> =>
    (await listSparsePartition(unfinishedIndexPartition)).map(toJob);

  /** The reuse entry of `key`, for a batch read. */
  const reuseEntry = (companyId: string, key: string): BatchEntry<E> => ({
    key: reuseKey(companyId, key),
    decode: toReuse,
  });

  /** The job, for a batch read. */
  const jobEntry = (companyId: string, jobId: string): BatchEntry<R> => ({
    key: jobKey(companyId, jobId),
    decode: toJob,
  });

  return {
    config,
    unfinishedIndexKey,
    jobKey,
    queueKey,
    reuseKey,
    toJob,
    jobEntry,
    reuseEntry,
    getJob,
    createJob,
    createFinished,
    move,
    finish,
    complete,
    fail,
    restart,
    getReuse,
    readQueue,
    listUnfinished,
  };
};

export type JobLifecycle<
  S extends string,
  R extends JobRecordBase<S>,
  E extends object = object,
> = ReturnType<typeof createJobLifecycle<S, R, E>>;
