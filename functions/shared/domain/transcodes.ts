import { stopExecution } from '../aws/step-functions';
import type { BatchEntry } from '../data/batch';
import { getItemsByKey } from '../data/batch';
import { companyEntry } from '../data/companies';
import { type StoredObject, storedObjectEntry } from '../data/stored-objects';
import {
  cancelTranscodeJob,
  createTranscodeJob,
  FINISHED_STATUSES,
  failTranscodeJob,
  getTranscodeJob,
  retryTranscodeJob,
  type TranscodeJobRecord,
  TranscodeTransitionRefusedError,
  toPublicJob,
  transcodeJobEntry,
} from '../data/transcode-jobs';
import { TranscodeQueueFullError } from '../data/transcode-queue';
import { secondsToNextUtcMonth, usageMonthEntry } from '../data/usage-meters';
import { AppError, NotFoundError } from '../errors';
import { ulid } from '../ids';
import { logger } from '../logger';
import type { PlanLimits } from '../types/plans';
import type { TranscodePreset } from '../types/transcodes';
import { companyLimits, limitsOf } from './company-limits';
import { jobExecutionName, startJobAttempt } from './job-executions';
import { parseStorageReference } from './storage-references';

/**
 * Transcode jobs as the API routes, the workflow action and the MCP read tool see them. Decisions where the
 * spec is silent:
 * - Enqueue and retry refuse with 429 `transcode_quota_exceeded` (Retry-After: to the next UTC month) once
 *   the month's billed `transcode_seconds` reached the plan's allowance, and with 429 `transcode_queue_full`
 *   (Retry-After: QUEUE_RETRY_AFTER_SECONDS) when the company already has `transcodeQueueCap` unfinished jobs.
 * - Cancel of a finished job: 409 `transcode_job_not_cancelable` with the job's `status` in the problem.
 *   Retry refusals: 409 `transcode_job_not_retryable` with `status` (and `leaseUntil` for a live lease).
 * - A retry re-runs from scratch as attempt + 1 in a new execution named `<jobId>-a<attempt>`; the previous
 *   attempt's output, error and billing are cleared. Every attempt is billed on its own, once.
 * - Size and duration limits are enforced by the probe step: a source over a limit makes the job `failed`
 *   with `source_too_large` / `source_too_long`, so the same rules apply to jobs from workflows and MCP.
 */
export const QUEUE_RETRY_AFTER_SECONDS = 30;

export const executionName = jobExecutionName;
export const newTranscodeJobId = () => `tc_${ulid()}`;

export { toPublicJob };
export type PublicTranscodeJob = ReturnType<typeof toPublicJob>;

/** The company's resolved transcode limits (plan with overrides). */
export const transcodeLimits = (companyId: string): Promise<PlanLimits> => companyLimits(companyId);

/**
 * One `BatchGetItem` for everything enqueue and retry check: the company (plan and overrides), the usage
 * month (transcode seconds so far) and the entity of `extra` (the source object or the job). The plan comes
 * from a per-process cache.
 */
const readForWrite = async <T>(companyId: string, now: Date, extra: BatchEntry<T>) => {
  const [company, month, item] = await getItemsByKey([
    companyEntry(companyId),
    usageMonthEntry(companyId, now),
    extra,
  ]);
  const limits = await limitsOf(companyId, company);
  return { limits, used: month?.figure('transcode_seconds') ?? 0, item };
};

/** Quota check shared by enqueue and retry: the month's billed seconds against the plan's allowance. */
const checkQuota = (companyId: string, limits: PlanLimits, usedSeconds: number, now: Date) => {
  if (usedSeconds >= limits.transcodeSecondsPerMonth) {
    throw new AppError(
      'transcode_quota_exceeded',
      'The monthly transcode seconds of your plan are used up.',
      {
        retryAfterSeconds: secondsToNextUtcMonth(now),
        extensions: { meter: 'transcode_seconds', limit: limits.transcodeSecondsPerMonth, used: usedSeconds },
      },
    );
  }
  logger.debug('transcode quota ok', { companyId, usedSeconds });
};

const queueFull = (limits: PlanLimits) =>
  new AppError('transcode_queue_full', 'Too many unfinished transcode jobs; wait for one to finish.', {
    retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS,
    extensions: { limit: limits.transcodeQueueCap },
  });

/** Starts the attempt's execution; a start that fails marks the attempt `failed` so its slot is released. */
const startAttempt = (job: TranscodeJobRecord, now: Date): Promise<TranscodeJobRecord> =>
  startJobAttempt({
    machine: 'transcode',
    job,
    fail: (error) => failTranscodeJob({ job, error, now }),
    message: 'The conversion could not be started; retry the job.',
  });

export const enqueueTranscode = async (
  companyId: string,
  input: { fullPath: string; preset: TranscodePreset; bucket?: string | undefined },
  now: Date,
): Promise<TranscodeJobRecord> => {
  // The source is one of the caller's stored objects: malformed → 400, another tenant's or missing → 404.
  const reference = parseStorageReference(companyId, {
    fullPath: input.fullPath,
    ...(input.bucket === undefined ? {} : { bucket: input.bucket }),
  });
  const { limits, used, item } = await readForWrite(
    companyId,
    now,
    storedObjectEntry(companyId, reference.fullPath),
  );
  const stored: StoredObject | undefined = item;
  if (!stored) throw new NotFoundError('No stored object at this reference.');
  const source = {
    bucket: reference.bucket,
    fullPath: reference.fullPath,
    size: stored.size,
    etag: stored.etag,
    contentType: stored.contentType,
  };
  checkQuota(companyId, limits, used, now);
  const iso = now.toISOString();
  const job: TranscodeJobRecord = {
    jobId: newTranscodeJobId(),
    companyId,
    status: 'pending',
    preset: input.preset,
    source,
    progress: { phase: 'pending' },
    attempt: 1,
    reused: false,
    billedSeconds: 0,
    createdAt: iso,
    updatedAt: iso,
    attemptStartedAt: iso,
  };
  try {
    await createTranscodeJob(job, limits.transcodeQueueCap);
  } catch (error) {
    if (error instanceof TranscodeQueueFullError) throw queueFull(limits);
    throw error;
  }
  return startAttempt(job, now);
};

export const getTranscode = async (companyId: string, jobId: string): Promise<TranscodeJobRecord> => {
  const job = await getTranscodeJob(companyId, jobId);
  if (!job) throw new NotFoundError('No transcode job with this id.');
  return job;
};

const isFinished = (status: string) => (FINISHED_STATUSES as readonly string[]).includes(status);

/**
 * Cancel: a conditional write from the observed unfinished state to `canceled` (clearing the lease and
 * releasing the queue slot), then StopExecution, which stops the media job too. A job that moved on between
 * the read and the write is read again, so a race with a worker resolves to exactly one final state.
 */
export const cancelTranscode = async (companyId: string, jobId: string, now: Date) => {
  for (let round = 0; round < 5; round++) {
    const job = await getTranscode(companyId, jobId);
    if (isFinished(job.status)) {
      throw new AppError('transcode_job_not_cancelable', `The job is already ${job.status}.`, {
        extensions: { jobStatus: job.status },
      });
    }
    let canceled: TranscodeJobRecord;
    try {
      canceled = await cancelTranscodeJob({ job, now });
    } catch (error) {
      if (error instanceof TranscodeTransitionRefusedError) continue;
      throw error;
    }
    // Before the probe step has recorded its execution the job has none to stop: that step finds the job
    // canceled and ends the execution without writing.
    if (job.executionArn) {
      await stopExecution(job.executionArn, 'canceled by the tenant').catch((error: unknown) =>
        logger.error('stopping a canceled transcode failed', { jobId, error: error as Error }),
      );
    }
    return canceled;
  }
  throw new AppError('conflict', 'The job changed while it was being canceled; try again.');
};

const notRetryable = (job: TranscodeJobRecord, detail: string) =>
  new AppError('transcode_job_not_retryable', detail, {
    extensions: { jobStatus: job.status, ...(job.leaseUntil ? { leaseUntil: job.leaseUntil } : {}) },
  });

/**
 * Retry: `failed` or `canceled` with no lease in the future, after the quota and queue checks, moves to
 * `pending` as the next attempt (one transaction with the queue slot) and starts a new execution.
 */
export const retryTranscode = async (companyId: string, jobId: string, now: Date) => {
  const { limits, used, item: job } = await readForWrite(companyId, now, transcodeJobEntry(companyId, jobId));
  if (!job) throw new NotFoundError('No transcode job with this id.');
  if (job.status !== 'failed' && job.status !== 'canceled') {
    throw notRetryable(job, `Only failed or canceled jobs can be retried; this one is ${job.status}.`);
  }
  if (job.leaseUntil && Date.parse(job.leaseUntil) > now.getTime()) {
    throw notRetryable(job, 'A worker still holds this job; retry after its lease ends.');
  }
  checkQuota(companyId, limits, used, now);
  let retried: TranscodeJobRecord;
  try {
    retried = await retryTranscodeJob({ job, queueCap: limits.transcodeQueueCap, now });
  } catch (error) {
    if (error instanceof TranscodeQueueFullError) throw queueFull(limits);
    if (error instanceof TranscodeTransitionRefusedError) {
      const current = await getTranscode(companyId, jobId);
      throw notRetryable(current, `The job changed meanwhile; it is ${current.status}.`);
    }
    throw error;
  }
  return startAttempt(retried, now);
};
