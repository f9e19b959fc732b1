import { JobTransitionRefusedError } from '../../shared/data/jobs/lifecycle';
import { failTranscriptionJob } from '../../shared/data/transcription-jobs';
import { logger } from '../../shared/logger';
import { errorFor } from './errors';
import type { FailInput, JobRef } from './types';

/**
 * Fail step (the `Catch` of every Task state): records the caught error on the job as its error code,
 * moving this attempt to `failed` and clearing the lease. A job that finished meanwhile keeps its state and
 * the step reports `recorded: false`.
 */
export const failStep = async (
  input: FailInput,
  deps: { now?: () => Date },
): Promise<JobRef & { recorded: boolean }> => {
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const error = errorFor(input.error?.Error);
  try {
    await failTranscriptionJob({ job: ref, error, now });
    logger.info('transcription failed', { jobId: ref.jobId, code: error.code, cause: input.error?.Error });
    return { ...ref, recorded: true };
  } catch (e) {
    if (e instanceof JobTransitionRefusedError) return { ...ref, recorded: false };
    throw e;
  }
};
