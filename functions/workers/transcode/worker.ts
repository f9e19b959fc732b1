import { createJobWorker } from '../../shared/domain/jobs/worker-shell';
import { transcodeJobs } from '../../shared/domain/transcodes';
import { finalizeStep } from './finalize';
import { probeStep } from './probe';
import { progressStep } from './progress';
import type { FinalizeInput, ProbeInput, ProgressInput, WorkerDeps } from './types';

/**
 * The transcode worker: the Lambda tasks of `statemachines/transcode.asl.json` (probe, finalize, and the
 * engine's fail) and the progress events of its MediaConvert jobs, dispatched by `action`. The Lambda entry
 * (`index.ts`) gives it MediaConvert's prober; the local stack gives it its own.
 */
export const createTranscodeWorker = (deps: WorkerDeps) =>
  createJobWorker(
    transcodeJobs,
    {
      probe: (input: ProbeInput) => probeStep(input, deps),
      finalize: (input: FinalizeInput) => finalizeStep(input, deps),
      progress: (input: ProgressInput) => progressStep(input, deps),
    },
    { ...deps, unkeyed: ['progress'] },
  );
