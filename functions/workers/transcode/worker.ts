import { logger } from '../../shared/logger';
import { failStep } from './fail';
import { finalizeStep } from './finalize';
import { probeStep } from './probe';
import { progressStep } from './progress';
import type { WorkerDeps, WorkerInput } from './types';

/**
 * The transcode worker: the Lambda tasks of `statemachines/transcode.asl.json` (probe, finalize, fail) and
 * the progress events of its MediaConvert jobs, dispatched by `action` to one module per step. The Lambda
 * entry (`index.ts`) gives it MediaConvert's prober; the local stack gives it ffprobe.
 */
export const createTranscodeWorker =
  (deps: WorkerDeps) =>
  async (input: WorkerInput): Promise<unknown> => {
    if (input.action === 'progress') return progressStep(input, deps);
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
          throw new Error(`Unknown transcode worker action ${(input as { action: string }).action}`);
      }
    } finally {
      logger.resetKeys();
    }
  };
