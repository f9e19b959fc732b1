import { createJobWorker, type StepDeps } from '../../shared/domain/jobs/worker-shell';
import { SPEECH_JOB_TYPE } from '../../shared/domain/speech-jobs';
import { finalizeStep } from './finalize';
import { prepareStep } from './prepare';
import type { FinalizeInput, PrepareInput, WorkerInput } from './types';

/**
 * The speech job worker: the Lambda tasks of `statemachines/speech-job.asl.json` (prepare, finalize, and the
 * engine's fail step), in the engine's worker shell.
 */
export const createSpeechJobWorker = (deps: StepDeps = {}) =>
  createJobWorker(
    SPEECH_JOB_TYPE,
    {
      prepare: (input: WorkerInput) => prepareStep(input as PrepareInput, deps),
      finalize: (input: WorkerInput) => finalizeStep(input as FinalizeInput, deps),
    },
    deps,
  );
