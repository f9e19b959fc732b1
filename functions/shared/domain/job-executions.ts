import { startExecution } from '../aws/step-functions';
import type { JobRef } from '../data/jobs/lifecycle';
import { AppError } from '../errors';
import { logger } from '../logger';
import type { StateMachineName } from '../types/state-machines';

/** An attempt's execution: `<jobId>-a<attempt>`, so a repeated start of the same attempt starts nothing new. */
export const jobExecutionName = (jobId: string, attempt: number) => `${jobId}-a${attempt}`;

/**
 * Starts the execution of a job's attempt (`{companyId, jobId, attempt}` as its input). An execution of that
 * name that already exists is this attempt's; a start that fails marks the attempt `failed` with
 * `start_failed` through `fail` (which releases its queue slot) and answers 503 `service_unavailable`.
 */
export const startJobAttempt = async <J extends JobRef>(options: {
  machine: StateMachineName;
  job: J;
  fail: (failure: { code: string; message: string }) => Promise<unknown>;
  message: string;
}): Promise<J> => {
  const { machine, job } = options;
  try {
    await startExecution(machine, jobExecutionName(job.jobId, job.attempt), {
      companyId: job.companyId,
      jobId: job.jobId,
      attempt: job.attempt,
    });
    return job;
  } catch (error) {
    if (error instanceof Error && error.name === 'ExecutionAlreadyExistsError') return job;
    logger.error(`${machine} execution did not start`, { jobId: job.jobId, error: error as Error });
    await options.fail({ code: 'start_failed', message: options.message }).catch(() => undefined);
    throw new AppError('service_unavailable', options.message);
  }
};
