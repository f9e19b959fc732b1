import { JobTransitionRefusedError } from '../../shared/data/jobs/lifecycle';
import { getTranscriptionJob, type TranscriptionJobRecord } from '../../shared/data/transcription-jobs';
import { logger } from '../../shared/logger';
import { jobGone } from './errors';
import type { JobRef } from './types';

/**
 * How a step makes its conditional transition. A job that finished or moved on refuses it, and the step
 * throws `TranscriptionJobGone` without writing. A repeated invocation of the same attempt (a retry after
 * the first one already wrote) finds the job still `transcribing` and continues.
 */
export const LEASE_SECONDS = { probe: 300, transcribe: 4 * 3600 + 900, finalize: 300 } as const;

export const leaseFrom = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

/** Runs a move into a final state; a refused one means the job is no longer this attempt's to work on. */
export const finishOrGone = async <T>(jobId: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (error) {
    if (error instanceof JobTransitionRefusedError) throw jobGone(jobId);
    throw error;
  }
};

/** Runs a move into `transcribing`; a repeated step finds its own attempt already there and continues. */
export const advance = async (
  ref: JobRef,
  write: () => Promise<TranscriptionJobRecord>,
): Promise<TranscriptionJobRecord> => {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof JobTransitionRefusedError)) throw error;
    const job = await getTranscriptionJob(ref.companyId, ref.jobId);
    if (job && job.attempt === ref.attempt && job.status === 'transcribing') {
      logger.info('transcription step repeated', { jobId: ref.jobId, attempt: ref.attempt });
      return job;
    }
    throw jobGone(ref.jobId);
  }
};
