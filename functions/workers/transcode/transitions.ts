import {
  getTranscodeJob,
  type TranscodeJobRecord,
  type TranscodeStatus,
  TranscodeTransitionRefusedError,
  UNFINISHED_STATUSES,
} from '../../shared/data/transcode-jobs';
import { logger } from '../../shared/logger';
import { jobGone } from './errors';
import type { JobRef } from './types';

/**
 * How a step makes its conditional transition. A job that was canceled (or retried into a newer attempt)
 * refuses it, and the step throws `TranscodeJobGone` without writing anything. A repeated invocation of the
 * same attempt (a retry after the first one already wrote) continues idempotently.
 */
export const LEASE_SECONDS = { probe: 300, transcode: 7200 + 600, finalize: 300 } as const;

export const leaseFrom = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

/** Runs a move into a final state; a refused one means the job is no longer this attempt's to work on. */
export const finishOrGone = async <T>(jobId: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (error) {
    if (error instanceof TranscodeTransitionRefusedError) throw jobGone(jobId);
    throw error;
  }
};

const ORDER: readonly TranscodeStatus[] = UNFINISHED_STATUSES;

/**
 * Runs a move between unfinished states. A refused move is not always a gone job: a repeated invocation of
 * the same step (a Lambda or Step Functions retry after the first invocation already wrote) finds the job of
 * its own attempt already in or past `target`, and continues from there. Only a job that was canceled,
 * finished, or moved on to another attempt is gone.
 */
export const advance = async (
  ref: JobRef,
  target: TranscodeStatus,
  write: () => Promise<TranscodeJobRecord>,
): Promise<TranscodeJobRecord> => {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof TranscodeTransitionRefusedError)) throw error;
    const job = await getTranscodeJob(ref.companyId, ref.jobId);
    if (job && job.attempt === ref.attempt && ORDER.indexOf(job.status) >= ORDER.indexOf(target)) {
      logger.info('transcode step repeated', { jobId: ref.jobId, attempt: ref.attempt, status: job.status });
      return job;
    }
    throw jobGone(ref.jobId);
  }
};
