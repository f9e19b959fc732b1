import { jobStep } from '../../shared/domain/jobs/worker-shell';
import { transcodeJobs } from '../../shared/domain/transcodes';
import type { ProgressInput, WorkerDeps } from './types';

/**
 * Records the percent complete of a MediaConvert job on the job (the recorder the local engine uses). Only
 * a job of the same attempt that is still `transcoding` takes it; anything else (a late event, a canceled
 * or retried job) is ignored. Capped at 99: 100 is written by finalize.
 */
export const progressStep = async (
  input: ProgressInput,
  deps: Pick<WorkerDeps, 'now'>,
): Promise<{ recorded: boolean; percent?: number }> => {
  const meta = input.detail?.userMetadata ?? {};
  const percent = Number(input.detail?.jobProgress?.jobPercentComplete);
  const attempt = Number(meta.attempt);
  if (
    input.detail?.status !== 'STATUS_UPDATE' ||
    !meta.companyId ||
    !meta.jobId ||
    !Number.isInteger(attempt) ||
    !Number.isFinite(percent)
  ) {
    return { recorded: false };
  }
  const clamped = Math.max(0, Math.min(99, Math.floor(percent)));
  const step = jobStep(
    transcodeJobs,
    { companyId: meta.companyId, jobId: meta.jobId, attempt },
    deps.now?.() ?? new Date(),
  );
  return (await step.progress('transcoding', clamped))
    ? { recorded: true, percent: clamped }
    : { recorded: false };
};
