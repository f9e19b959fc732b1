import { startExecution } from '../../aws/step-functions';
import { type BatchEntry, getItemsByKey } from '../../data/batch';
import { companyEntry } from '../../data/companies';
import { JobQueueFullError } from '../../data/jobs/lifecycle';
import { DONE, type JobFields, PENDING } from '../../data/jobs/moves';
import type { JobRecordBase, JobRef } from '../../data/jobs/record';
import { type StoredObject, storedObjectEntry } from '../../data/stored-objects';
import { meterMonthEntries, meterMonthFigure, secondsToNextUtcMonth } from '../../data/usage-meters';
import { AppError, NotFoundError } from '../../errors';
import { ulid } from '../../ids';
import { logger } from '../../observability/logger';
import type { PlanLimits } from '../../types/plans';
import type { StateMachineName } from '../../types/state-machines';
import { limitsOf } from '../company-limits';
import { parseStorageReference } from '../storage-references';
import { type JobTypeDefinition, type JobTypeInfo, startFailedError } from './job-type';

/**
 * Enqueue, the engine's way for every job type: a storage reference is resolved (malformed → 400, another
 * tenant's or missing → 404), one `BatchGetItem` reads the company (plan, overrides), the usage month, the
 * source object and the reuse entry (while the type stores the job's input files, if it has any), then either an identical finished job's result is reused (a `done`
 * job billed 0, no queue slot, no execution) or the quota is checked (the month's units, plus what the job
 * will bill when it says so, against the allowance: 429 with `Retry-After` to the next month) and the job
 * is written `pending` with a slot of the company's queue in one transaction (a full queue: 429, nothing
 * written), and its execution is started. The route's `Idempotency-Key` (the `keyed` middleware) makes a
 * repeated request answer the first job.
 */
export const QUEUE_RETRY_AFTER_SECONDS = 30;

/** An attempt's execution: `<jobId>-a<attempt>`, so a repeated start of the same attempt starts nothing new. */
export const jobExecutionName = (jobId: string, attempt: number) => `${jobId}-a${attempt}`;

/** A job's source as enqueued: the stored object's reference, size, ETag and content type. */
export interface JobSource {
  bucket: string;
  fullPath: string;
  size: number;
  etag: string;
  contentType?: string;
}

export interface EnqueueRequest<R, E> {
  /** The stored file the job reads, when it reads one (recorded on the job as `source`). */
  source?: { fullPath: string; bucket?: string | undefined };
  /** The type's own attributes of the new job (its input), given the resolved source. */
  fields: (source: JobSource | undefined) => Omit<JobFields<R>, 'source'>;
  /** Units of the type's meter the job will bill, when known now (checked against the allowance). */
  demand?: number;
  /**
   * Stores the job's input files (deleted by the type's `deleteInput`), while the company and the rest are
   * read; they are deleted again when the job is not written, or written reused.
   */
  storeInput?: (job: JobRef) => Promise<unknown>;
  /** Reuse at enqueue: the key of an identical request, and how an entry's result becomes the job's. */
  reuse?: {
    key: string;
    usable: (entry: E) => Promise<boolean>;
    fields: (entry: E) => Partial<JobFields<R>>;
  };
}

/**
 * One `BatchGetItem` for what enqueue and retry check: the company (plan and overrides), the usage month
 * and the `extra` entities (the source object, a reuse entry, the job). The plan comes from a cache.
 */
export const readForWrite = async <const X extends readonly BatchEntry<unknown>[]>(
  type: JobTypeInfo,
  companyId: string,
  now: Date,
  extra: X,
) => {
  const [company, month, family, ...items] = await getItemsByKey([
    companyEntry(companyId),
    ...meterMonthEntries(companyId, type.store.meter, now),
    ...extra,
  ] as const);
  const limits = await limitsOf(companyId, company);
  return { limits, used: meterMonthFigure([month, family], type.store.meter), items };
};

/** The month's units of the type's meter against its allowance (and what this job adds, when known). */
export const checkQuota = (
  type: JobTypeInfo,
  limits: PlanLimits,
  used: number,
  now: Date,
  demand = 0,
): void => {
  const limit = type.limits.quota(limits);
  if (used < limit && used + demand <= limit) return;
  const meter = type.store.meter;
  throw new AppError(
    type.codes.quotaExceeded,
    `The monthly ${meter.replace('_', ' ')} of your plan are used up.`,
    {
      retryAfterSeconds: secondsToNextUtcMonth(now),
      extensions: { meter, limit, used, ...(demand > 0 ? { requested: demand } : {}) },
    },
  );
};

export const queueFullError = (type: JobTypeInfo, limits: PlanLimits) =>
  new AppError(type.codes.queueFull, `Too many unfinished ${type.noun} jobs; wait for one to finish.`, {
    retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS,
    extensions: { limit: type.limits.queueCap(limits) },
  });

/**
 * Starts the execution of a job's attempt (`{companyId, jobId, attempt}` as its input, and the job's `source`
 * when it reads one, so its first step reads the source while it claims the job). An execution of that name
 * that already exists is this attempt's; a start that fails marks the attempt `failed` with
 * `start_failed` (which releases its queue slot) and answers 503 `service_unavailable`.
 */
export const startAttempt = async <J extends JobRef>(type: JobTypeInfo, job: J, now: Date): Promise<J> => {
  const machineOf = type.machineOf as ((job: J) => StateMachineName) | undefined;
  const machine = machineOf?.(job) ?? type.machine;
  try {
    await startExecution(machine, jobExecutionName(job.jobId, job.attempt), {
      companyId: job.companyId,
      jobId: job.jobId,
      attempt: job.attempt,
      ...('source' in job ? { source: job.source } : {}),
    });
    return job;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExecutionAlreadyExistsError') return job;
    logger.error(`${machine} execution did not start`, { jobId: job.jobId, error: error as Error });
    const failure = startFailedError(type);
    await type.moves.fail({ job, error: failure, now }).then(
      () => type.deleteInput?.(job),
      () => undefined,
    );
    throw new AppError('service_unavailable', failure.message);
  }
};

/** An entry of a batch read whose decoded value is tagged, so optional entries can share one read. */
const tagged = <T, K extends string>(entry: BatchEntry<T>, tag: K): BatchEntry<{ [P in K]: T }> => ({
  key: entry.key,
  decode: (item) => ({ [tag]: entry.decode(item) }) as { [P in K]: T },
});

/** What enqueue's batch read gives beside the company and the month: the source object, the reuse entry. */
type Tagged<E> = { stored: StoredObject | undefined } | { reuse: E };

/** The id's time is the job's `createdAt`, so a creation-time filter of the list is a range of ids. */
const newJobId = (type: JobTypeInfo, now: Date) => `${type.idPrefix}${ulid(now.getTime())}`;

export const enqueueJob = async <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: JobTypeDefinition<S, R, E, V>,
  companyId: string,
  request: EnqueueRequest<R, E>,
  now: Date,
): Promise<R> => {
  const reference = request.source
    ? parseStorageReference(companyId, {
        fullPath: request.source.fullPath,
        ...(request.source.bucket === undefined ? {} : { bucket: request.source.bucket }),
      })
    : undefined;
  const extra: BatchEntry<Tagged<E>>[] = [];
  if (reference) extra.push(tagged(storedObjectEntry(companyId, reference.fullPath), 'stored'));
  if (request.reuse) extra.push(tagged(type.lifecycle.reuseEntry(companyId, request.reuse.key), 'reuse'));
  const ref = { companyId, jobId: newJobId(type, now), attempt: 1 };
  const [read, input] = await Promise.allSettled([
    readForWrite(type, companyId, now, extra),
    request.storeInput?.(ref),
  ]);
  let job: R;
  try {
    if (read.status === 'rejected') throw read.reason;
    if (input.status === 'rejected') throw input.reason;
    job = await createEnqueued(type, request, reference, read.value, ref, now);
  } catch (error) {
    await type.deleteInput?.(ref);
    throw error;
  }
  if (job.status === PENDING) return startAttempt(type, job, now);
  await type.deleteInput?.(ref);
  return job;
};

/** The new job of an enqueue request, as it was written: `pending`, or `done` with a reused result. */
const createEnqueued = async <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: JobTypeDefinition<S, R, E, V>,
  request: EnqueueRequest<R, E>,
  reference: { bucket: string; fullPath: string } | undefined,
  { limits, used, items }: { limits: PlanLimits; used: number; items: readonly (Tagged<E> | undefined)[] },
  ref: JobRef,
  now: Date,
): Promise<R> => {
  let stored: StoredObject | undefined;
  let reuse: E | undefined;
  for (const item of items) {
    if (item && 'stored' in item) stored = item.stored;
    else if (item) reuse = item.reuse;
  }
  if (reference && !stored) throw new NotFoundError('No stored object at this reference.');
  const source: JobSource | undefined =
    reference && stored
      ? {
          bucket: reference.bucket,
          fullPath: reference.fullPath,
          size: stored.size,
          etag: stored.etag,
          contentType: stored.contentType,
        }
      : undefined;
  const iso = now.toISOString();
  const base = {
    ...ref,
    reused: false,
    billedSeconds: 0,
    createdAt: iso,
    updatedAt: iso,
    attemptStartedAt: iso,
    ...(source ? { source } : {}),
    ...request.fields(source),
  };
  if (request.reuse && reuse && (await request.reuse.usable(reuse))) {
    const job = {
      ...base,
      ...request.reuse.fields(reuse),
      status: DONE,
      reused: true,
      progress: { phase: DONE, percent: 100 },
      finishedAt: iso,
    } as R;
    await type.lifecycle.createFinished(job);
    return job;
  }
  checkQuota(type, limits, used, now, request.demand);
  const job = { ...base, status: PENDING, progress: { phase: PENDING } } as R;
  try {
    await type.lifecycle.createJob(job, type.limits.queueCap(limits));
  } catch (error) {
    if (error instanceof JobQueueFullError) throw queueFullError(type, limits);
    throw error;
  }
  return job;
};
