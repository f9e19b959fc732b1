import { createJobWorker, type StepDeps } from '../../shared/domain/jobs/worker-shell';
import { SPEECH_JOB_TYPE } from '../../shared/domain/speech-jobs';
import { finalizeStep } from './finalize';
import { prepareStep } from './prepare';
import type { FinalizeInput, PrepareInput } from './types';

/**
 * The speech job worker: the Lambda tasks of `statemachines/speech-job.asl.json` (prepare, finalize, and the
 * engine's fail step), in the engine's worker shell.
 */
export const createSpeechJobWorker = (deps: StepDeps = {}) =>
  createJobWorker(
    SPEECH_JOB_TYPE,
    {
      prepare: (input: PrepareInput) => prepareStep(input, deps),
      finalize: (input: FinalizeInput) => finalizeStep(input, deps),
    },
    deps,
  );
