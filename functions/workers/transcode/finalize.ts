import { headObject } from '../../shared/aws/s3-objects';
import { transcodeReuseKey } from '../../shared/data/transcode-jobs';
import { billableSeconds, engineRunMs } from '../../shared/domain/compute-time';
import { recordEngineFile } from '../../shared/domain/jobs/output-files';
import { runStep, stepError } from '../../shared/domain/jobs/worker-shell';
import { transcodeJobs } from '../../shared/domain/transcodes';
import { LEASE_SECONDS } from './probe';
import type { FinalizeInput, JobRef, WorkerDeps } from './types';

/**
 * Finalize step: `transcoding` → `finalizing`, records the engine's output as a stored object of the
 * company, then `finalizing` → `done`, billing the conversion with its compute time (the probe's and this
 * step's run time, the engine's conversion time) and writing its reuse entry in the same transaction (a job
 * canceled meanwhile leaves none behind). Error: `OutputMissing` when the engine wrote no output file.
 */
export const finalizeStep = (input: FinalizeInput, deps: WorkerDeps): Promise<JobRef> =>
  runStep(transcodeJobs, input, deps, async (step) => {
    const { ref, now } = step;
    // The move and the read of the engine's output in parallel; the output is recorded only once the move
    // holds (a job canceled meanwhile records nothing).
    const read = deps.head ?? headObject;
    const [job, head] = await Promise.all([
      step.advance({
        from: ['transcoding'],
        to: 'finalizing',
        leaseSeconds: LEASE_SECONDS.finalize,
        percent: 100,
      }),
      read(input.output.bucket, input.output.fullPath),
    ]);
    const file =
      head && (await recordEngineFile({ companyId: ref.companyId, ...input.output }, now, async () => head));
    if (!file) throw stepError('OutputMissing', 'The media engine wrote no output file.');
    const output = { ...input.output, size: file.size };
    const source = input.source ?? job.source;
    await step.complete({
      from: ['finalizing'],
      set: { output },
      billedUnits: billableSeconds(input.durationSeconds),
      computeMs: {
        workers: (input.workerMs ?? 0) + step.elapsed(),
        media: engineRunMs(input.engineTiming?.StartTime, input.engineTiming?.FinishTime),
      },
      reuse: {
        key: transcodeReuseKey({ preset: job.preset, size: source.size, etag: source.etag }),
        entry: {
          output,
          sourceJobId: ref.jobId,
          durationSeconds: input.durationSeconds,
          createdAt: now.toISOString(),
        },
      },
      observed: job,
    });
    return ref;
  });
