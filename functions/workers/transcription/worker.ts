import { logger } from '../../shared/logger';
import { failStep } from './fail';
import { finalizeStep } from './finalize';
import { probeStep } from './probe';
import type { WorkerDeps, WorkerInput } from './types';

/**
 * The transcription worker: the Lambda tasks of `statemachines/transcription.asl.json` (probe, finalize,
 * fail), dispatched by `action`. The Lambda entry gives it MediaConvert's prober; the local stack ffprobe.
 */
export const createTranscriptionWorker =
  (deps: WorkerDeps) =>
  async (input: WorkerInput): Promise<unknown> => {
    logger.appendKeys({ jobId: input.jobId, companyId: input.companyId });
    try {
      switch (input.action) {
        case 'probe':
          return await probeStep(input, deps);
        case 'finalize':
          return await finalizeStep(input, deps);
        case 'fail':
          return await failStep(input, deps);
        default:
          throw new Error(`Unknown transcription worker action ${(input as { action: string }).action}`);
      }
    } finally {
      logger.resetKeys();
    }
  };
