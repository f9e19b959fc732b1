import { JobTransitionRefusedError } from '../../shared/data/job-lifecycle';
import { failSpeechJob } from '../../shared/data/speech-jobs';
import { logger } from '../../shared/logger';
import { errorFor } from './errors';
import type { FailInput, JobRef } from './types';

/**
 * Fail step (the `Catch` of every Task state): records the caught error on the job as its error code, moving
 * this attempt to `failed` and clearing the lease. A job that finished meanwhile (canceled) keeps its state.
 */
export const failStep = async (
  input: FailInput,
  deps: { now?: () => Date },
): Promise<JobRef & { recorded: boolean }> => {
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const error = errorFor(input.error?.Error);
  try {
    await failSpeechJob({ job: ref, error, now });
    logger.info('speech job failed', { jobId: ref.jobId, code: error.code, cause: input.error?.Error });
    return { ...ref, recorded: true };
  } catch (e) {
    if (e instanceof JobTransitionRefusedError) return { ...ref, recorded: false };
    throw e;
  }
};
