import { failTranscodeJob, TranscodeTransitionRefusedError } from '../../shared/data/transcode-jobs';
import { logger } from '../../shared/logger';
import { errorFor } from './errors';
import type { FailInput, JobRef, WorkerDeps } from './types';

/**
 * Fail step (the `Catch` of every Task state): records the caught error on the job as its error code
 * (`errorFor`), moving this attempt to `failed`. A job canceled or retried meanwhile keeps its state and the
 * step reports `recorded: false`.
 */
export const failStep = async (
  input: FailInput,
  deps: Pick<WorkerDeps, 'now'>,
): Promise<JobRef & { recorded: boolean }> => {
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const error = errorFor(input.error?.Error);
  try {
    await failTranscodeJob({ job: ref, error, now });
    logger.info('transcode failed', {
      jobId: ref.jobId,
      attempt: ref.attempt,
      code: error.code,
      cause: input.error?.Error,
    });
    return { ...ref, recorded: true };
  } catch (e) {
    if (e instanceof TranscodeTransitionRefusedError) return { ...ref, recorded: false };
    throw e;
  }
};
