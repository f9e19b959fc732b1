import { JobTransitionRefusedError } from '../../shared/data/job-lifecycle';
import { getSpeechJob, type SpeechJobRecord } from '../../shared/data/speech-jobs';
import { logger } from '../../shared/logger';
import { jobGone } from './errors';
import type { JobRef } from './types';

/**
 * How a step makes its conditional transition: a job that finished or moved on (canceled) refuses it and the
 * step throws `SpeechJobGone` without writing; a repeated invocation of the same attempt finds the job still
 * `synthesizing` and continues. The lease covers the longest synthesis (100,000 characters).
 */
export const LEASE_SECONDS = 3 * 3600;

export const leaseFrom = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

export const finishOrGone = async <T>(jobId: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (error) {
    if (error instanceof JobTransitionRefusedError) throw jobGone(jobId);
    throw error;
  }
};

export const advance = async (ref: JobRef, write: () => Promise<SpeechJobRecord>): Promise<SpeechJobRecord> => {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof JobTransitionRefusedError)) throw error;
    const job = await getSpeechJob(ref.companyId, ref.jobId);
    if (job && job.attempt === ref.attempt && job.status === 'synthesizing') {
      logger.info('speech job step repeated', { jobId: ref.jobId, attempt: ref.attempt });
      return job;
    }
    throw jobGone(ref.jobId);
  }
};
