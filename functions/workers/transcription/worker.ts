import { createJobWorker } from '../../shared/domain/jobs/worker-shell';
import { transcriptionJobs } from '../../shared/domain/transcriptions';
import { finalizeStep } from './finalize';
import { probeStep } from './probe';
import type { FinalizeInput, ProbeInput, WorkerDeps } from './types';

/**
 * The transcription worker: the Lambda tasks of `statemachines/transcription.asl.json` (probe, finalize, and
 * the engine's fail), dispatched by `action`. The Lambda entry gives it MediaConvert's prober; the local
 * stack its own.
 */
export const createTranscriptionWorker = (deps: WorkerDeps) =>
  createJobWorker(
    transcriptionJobs,
    {
      probe: (input: ProbeInput) => probeStep(input, deps),
      finalize: (input: FinalizeInput) => finalizeStep(input, deps),
    },
    deps,
  );
