import { logger } from '../../shared/logger';
import { failStep } from './fail';
import { finalizeStep } from './finalize';
import { prepareStep } from './prepare';
import type { WorkerDeps, WorkerInput } from './types';

/** The speech job worker: the Lambda tasks of `statemachines/speech-job.asl.json`, dispatched by `action`. */
export const createSpeechJobWorker =
  (deps: WorkerDeps = {}) =>
  async (input: WorkerInput): Promise<unknown> => {
    logger.appendKeys({ jobId: input.jobId, companyId: input.companyId });
    try {
      switch (input.action) {
        case 'prepare':
          return await prepareStep(input, deps);
        case 'finalize':
          return await finalizeStep(input, deps);
        case 'fail':
          return await failStep(input, deps);
        default:
          throw new Error(`Unknown speech job worker action ${(input as { action: string }).action}`);
      }
    } finally {
      logger.resetKeys();
    }
  };
