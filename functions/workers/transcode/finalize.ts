import { headObject } from '../../shared/aws/s3-objects';
import { recordStoredObject } from '../../shared/data/stored-objects';
import { completeTranscodeJob, startFinalizing } from '../../shared/data/transcode-jobs';
import { engineRunMs, startStepClock } from '../../shared/domain/compute-time';
import { stepError } from './errors';
import { advance, finishOrGone, LEASE_SECONDS, leaseFrom } from './transitions';
import type { FinalizeInput, JobRef, WorkerDeps } from './types';

/** Seconds billed for a conversion: the source duration, rounded up to whole seconds. */
export const billableSeconds = (durationSeconds: number) => Math.max(1, Math.ceil(durationSeconds));

/**
 * Finalize step: `transcoding` → `finalizing`, records the engine's output as a stored object of the
 * company, then `finalizing` → `done`, billing the conversion with its compute time (the probe's and this
 * step's run time, the engine's conversion time) and writing its reuse entry. Error:
 * `OutputMissing` when the engine wrote no output file.
 */
export const finalizeStep = async (input: FinalizeInput, deps: WorkerDeps): Promise<JobRef> => {
  const elapsed = startStepClock();
  const now = deps.now?.() ?? new Date();
  const ref = { companyId: input.companyId, jobId: input.jobId, attempt: input.attempt };
  const job = await advance(ref, 'finalizing', () =>
    startFinalizing({ job: ref, leaseUntil: leaseFrom(now, LEASE_SECONDS.finalize), now }),
  );
  const head = await (deps.head ?? headObject)(input.output.bucket, input.output.fullPath);
  if (!head) throw stepError('OutputMissing', 'The media engine wrote no output file.');
  const output = { ...input.output, size: head.size };
  // Recorded like an upload: downloadable with GET /v1/storage/url, referenceable, counted in storage bytes.
  await recordStoredObject(
    ref.companyId,
    { ...input.output, size: head.size, etag: head.etag, createdAt: now.toISOString() },
    now,
  );
  // The reuse entry is written in the same transaction as the billed move to `done`: a job canceled
  // meanwhile leaves none behind.
  const source = input.source ?? job.source;
  await finishOrGone(ref.jobId, () =>
    completeTranscodeJob({
      job: ref,
      output,
      billedSeconds: billableSeconds(input.durationSeconds),
      computeMs: {
        workers: (input.workerMs ?? 0) + elapsed(),
        media: engineRunMs(input.engineTiming?.StartTime, input.engineTiming?.FinishTime),
      },
      reuse: {
        content: { preset: job.preset, size: source.size, etag: source.etag },
        entry: {
          output,
          sourceJobId: ref.jobId,
          durationSeconds: input.durationSeconds,
          createdAt: now.toISOString(),
        },
      },
      now,
      observed: job,
    }),
  );
  return ref;
};
