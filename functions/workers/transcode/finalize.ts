import { headObject } from '../../shared/aws/s3-objects';
import { transcodeReuseKey } from '../../shared/data/transcode-jobs';
import { billableSeconds, engineRunMs } from '../../shared/domain/compute-time';
import { runStep, stepError } from '../../shared/domain/jobs/worker-shell';
import { transcodeJobs } from '../../shared/domain/transcodes';
import type { FinalizeInput, JobRef, WorkerDeps } from './types';

/**
 * Finalize step: reads the job and heads the engine's output at once (the ffmpeg function's `written`, its
 * PUT's answer, needs no HEAD: 0061), then moves the job `transcoding` → `done` (`finalizing`, of executions
 * started before; `probing`, of a fast Express conversion: 0055), recording the output as a stored object and
 * billing the conversion with its compute time (the probe's and this step's run time, the engine's), in the
 * move's transaction (a job canceled meanwhile records and bills nothing), then its reuse entry. Error:
 * `OutputMissing` when the engine wrote no output file.
 */
export const finalizeStep = (input: FinalizeInput, deps: WorkerDeps): Promise<JobRef> =>
  runStep(transcodeJobs, input, deps, async (step) => {
    const { ref, now } = step;
    const from = ['probing', 'transcoding', 'finalizing'] as const;
    const [job, head] = await Promise.all([
      step.read(from),
      input.written ?? (deps.head ?? headObject)(input.output.bucket, input.output.fullPath),
    ]);
    if (!head) throw stepError('OutputMissing', 'The media engine wrote no output file.');
    const output = { ...input.output, size: head.size };
    const source = input.source ?? job.source;
    await step.complete({
      from,
      set: { output, durationSeconds: input.durationSeconds, ...input.probed },
      billedUnits: billableSeconds(input.durationSeconds),
      computeMs: {
        workers: (input.workerMs ?? 0) + step.elapsed(),
        media: engineRunMs(input.engineTiming?.StartTime, input.engineTiming?.FinishTime),
      },
      files: [{ ...output, etag: head.etag, createdAt: now.toISOString() }],
      reuse: {
        key: transcodeReuseKey({ preset: job.preset, size: source.size, etag: source.etag }),
        entry: {
          output,
          sourceJobId: ref.jobId,
          durationSeconds: input.durationSeconds,
          createdAt: now.toISOString(),
        },
      },
    });
    return ref;
  });
