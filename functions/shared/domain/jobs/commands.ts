import { stopExecution } from '../../aws/step-functions';
import { JobQueueFullError, JobTransitionRefusedError } from '../../data/jobs/lifecycle';
import { CANCELED, FAILED } from '../../data/jobs/moves';
import { listJobPage } from '../../data/jobs/pages';
import type { JobRecordBase } from '../../data/jobs/record';
import { AppError, NotFoundError, ValidationError } from '../../errors';
import { ulidTimePrefix } from '../../ids';
import { logger } from '../../observability/logger';
import { isExpressExecution } from '../../types/state-machines';
import { DEFAULT_JOB_PAGE, listCursor, MAX_JOB_FILTER_EXAMINED, type PageRequest } from '../pages';
import { checkQuota, queueFullError, readForWrite, startAttempt } from './enqueue';
import type { JobTypeDefinition } from './job-type';

/**
 * The tenant's commands on a job of any type: read, list, cancel and retry. Decisions where the spec is
 * silent, the same for every type:
 * - Cancel of a finished job: 409 with the type's `notCancelable` code and the job's `jobStatus`.
 * - Retry of anything but `failed`/`canceled`, or of a job a worker still holds (a lease in the future):
 *   409 with the type's `notRetryable` code, `jobStatus` (and `leaseUntil`). A retry re-runs from scratch
 *   as attempt + 1 in a new execution, after the same quota and queue checks as enqueue; every attempt is
 *   billed on its own, once.
 */
type Type<S extends string, R extends JobRecordBase<S>, E extends object, V> = JobTypeDefinition<S, R, E, V>;

export const getJob = async <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: Type<S, R, E, V>,
  companyId: string,
  jobId: string,
): Promise<R> => {
  const job = await type.lifecycle.getJob(companyId, jobId);
  if (!job) throw new NotFoundError(`No ${type.noun} job with this id.`);
  return job;
};

/** A page request of a job list: the paging rule's `limit` and `cursor`, and the list's filters. */
export interface JobListRequest extends PageRequest {
  status?: string | undefined;
  /** ISO 8601: only jobs created at or after this instant. */
  createdAfter?: string | undefined;
  /** ISO 8601: only jobs created before this instant. */
  createdBefore?: string | undefined;
}

/**
 * The inclusive id bounds of the jobs created in `[createdAfter, createdBefore)`: job ids are the type's
 * prefix and a ULID of the job's `createdAt` (`enqueue.ts`), so a time range is a range of ids. An empty
 * window (`createdBefore` not after `createdAfter`) is refused at `/query/createdBefore`.
 */
export const jobIdBounds = (
  idPrefix: string,
  request: Pick<JobListRequest, 'createdAfter' | 'createdBefore'>,
): { lowestId: string; highestId: string } => {
  const after = request.createdAfter === undefined ? undefined : Date.parse(request.createdAfter);
  const before = request.createdBefore === undefined ? undefined : Date.parse(request.createdBefore);
  if (after !== undefined && before !== undefined && before <= after) {
    throw new ValidationError(
      [{ pointer: '/query/createdBefore', message: 'must be later than createdAfter' }],
      'The creation-time window is empty.',
    );
  }
  return {
    lowestId: after === undefined ? idPrefix : `${idPrefix}${ulidTimePrefix(after)}`,
    highestId: `${idPrefix}${before === undefined ? '' : ulidTimePrefix(before - 1)}\uffff`,
  };
};

/**
 * A page of the company's jobs of the type, newest first, by the one paging rule, filtered by status and
 * creation time. The cursor is the id of the last job shown (or examined, on a filtered page); anything that
 * cannot be a job id of the type is refused at its pointer.
 */
export const listJobs = async <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: Type<S, R, E, V>,
  companyId: string,
  request: JobListRequest,
): Promise<{ jobs: V[]; nextCursor: string | null }> => {
  const cursor = listCursor(request.cursor, new RegExp(`^${type.idPrefix}[0-9a-z]{1,64}$`));
  const page = await listJobPage(type.lifecycle, companyId, {
    limit: request.limit ?? DEFAULT_JOB_PAGE,
    cursor,
    status: request.status,
    maxExamined: MAX_JOB_FILTER_EXAMINED,
    ...jobIdBounds(type.idPrefix, request),
  });
  return { jobs: page.jobs.map(type.view), nextCursor: page.nextCursor };
};

const isFinished = (type: { store: { finished: readonly string[] } }, status: string) =>
  type.store.finished.includes(status);

/**
 * Cancel: a conditional write from the observed unfinished state to `canceled` (clearing the lease and
 * releasing the queue slot), then StopExecution (not for an Express execution: it cannot be stopped, and
 * ends at its next write), which stops the engine's work too, and the deletion of the
 * job's input files. A job that moved on
 * between the read and the write is read again, so a race with a worker resolves to one final state.
 */
export const cancelJob = async <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: Type<S, R, E, V>,
  companyId: string,
  jobId: string,
  now: Date,
): Promise<R> => {
  const notCancelable = type.codes.notCancelable ?? 'conflict';
  for (let round = 0; round < 5; round++) {
    const job = await getJob(type, companyId, jobId);
    if (isFinished(type, job.status)) {
      throw new AppError(notCancelable, `The job is already ${job.status}.`, {
        extensions: { jobStatus: job.status },
      });
    }
    let canceled: R;
    try {
      canceled = await type.moves.cancel(job, now);
    } catch (error) {
      if (error instanceof JobTransitionRefusedError) continue;
      throw error;
    }
    // Before the first step has recorded its execution the job has none to stop: that step finds the job
    // canceled and ends the execution without writing. An Express execution cannot be stopped: its next
    // write finds the job canceled (the conversion's progress stops ffmpeg) and it ends without writing.
    await Promise.all([
      job.executionArn &&
        !isExpressExecution(job.executionArn) &&
        stopExecution(job.executionArn, 'canceled by the tenant').catch((error: unknown) =>
          logger.error(`stopping a canceled ${type.noun} failed`, { jobId, error: error as Error }),
        ),
      type.deleteInput?.(job),
    ]);
    return canceled;
  }
  throw new AppError('conflict', 'The job changed while it was being canceled; try again.');
};

/**
 * Retry: `failed` or `canceled` with no lease in the future, after the quota and queue checks, moves to
 * `pending` as the next attempt (one transaction with the queue slot) and starts a new execution.
 */
export const retryJob = async <S extends string, R extends JobRecordBase<S>, E extends object, V>(
  type: Type<S, R, E, V>,
  companyId: string,
  jobId: string,
  now: Date,
): Promise<R> => {
  const code = type.codes.notRetryable ?? 'conflict';
  const notRetryable = (job: R, detail: string) =>
    new AppError(code, detail, {
      extensions: { jobStatus: job.status, ...(job.leaseUntil ? { leaseUntil: job.leaseUntil } : {}) },
    });
  const { limits, used, items } = await readForWrite(type, companyId, now, [
    type.lifecycle.jobEntry(companyId, jobId),
  ]);
  const [job] = items;
  if (!job) throw new NotFoundError(`No ${type.noun} job with this id.`);
  if (job.status !== FAILED && job.status !== CANCELED) {
    throw notRetryable(job, `Only failed or canceled jobs can be retried; this one is ${job.status}.`);
  }
  if (job.leaseUntil && Date.parse(job.leaseUntil) > now.getTime()) {
    throw notRetryable(job, 'A worker still holds this job; retry after its lease ends.');
  }
  checkQuota(type, limits, used, now);
  let retried: R;
  try {
    retried = await type.moves.retry(job, type.limits.queueCap(limits), now);
  } catch (error) {
    if (error instanceof JobQueueFullError) throw queueFullError(type, limits);
    if (error instanceof JobTransitionRefusedError) {
      const current = await getJob(type, companyId, jobId);
      throw notRetryable(current, `The job changed meanwhile; it is ${current.status}.`);
    }
    throw error;
  }
  return startAttempt(type, retried, now);
};

/**
 * The API handlers of a type's job routes (read, list, cancel, retry): `{ job }` as the tenant sees it after
 * the read or command, or a page of views. Each is made on its own, so a function that serves only reads
 * bundles no command. A type's operations module adds its own enqueue handler.
 */
type OneJob = { auth: { companyId: string }; params: { id: string }; now: Date };

export const jobReadHandler =
  <S extends string, R extends JobRecordBase<S>, E extends object, V>(type: Type<S, R, E, V>) =>
  async ({ auth, params }: OneJob) => ({
    body: { job: type.view(await getJob(type, auth.companyId, params.id)) },
  });

export const jobListHandler =
  <S extends string, R extends JobRecordBase<S>, E extends object, V>(type: Type<S, R, E, V>) =>
  async ({ auth, query }: { auth: { companyId: string }; query: JobListRequest }) => ({
    body: await listJobs(type, auth.companyId, query),
  });

export const jobCancelHandler =
  <S extends string, R extends JobRecordBase<S>, E extends object, V>(type: Type<S, R, E, V>) =>
  async ({ auth, params, now }: OneJob) => ({
    body: { job: type.view(await cancelJob(type, auth.companyId, params.id, now)) },
  });

export const jobRetryHandler =
  <S extends string, R extends JobRecordBase<S>, E extends object, V>(type: Type<S, R, E, V>) =>
  async ({ auth, params, now }: OneJob) => ({
    body: { job: type.view(await retryJob(type, auth.companyId, params.id, now)) },
  });
