import { recordEngineProgress } from '../../shared/domain/jobs/worker-shell';
import { transcodeJobs } from '../../shared/domain/transcodes';
import type { ProgressInput, WorkerDeps } from './types';

/**
 * Records the percent complete of a MediaConvert job (its `STATUS_UPDATE` events) on the `transcoding` job
 * its user metadata names; other events are ignored.
 */
export const progressStep = async (input: ProgressInput, deps: Pick<WorkerDeps, 'now'>) =>
  input.detail?.status === 'STATUS_UPDATE'
    ? recordEngineProgress(transcodeJobs, 'transcoding', {
        ...(input.detail.userMetadata ? { meta: input.detail.userMetadata } : {}),
        percent: Number(input.detail.jobProgress?.jobPercentComplete),
        now: deps.now?.() ?? new Date(),
      })
    : { recorded: false };
