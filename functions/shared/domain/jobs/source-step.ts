import type { MediaProbe, MediaProber } from '../../aws/mediaconvert';
import { headObject } from '../../aws/s3-objects';
import type { JobFields } from '../../data/jobs/moves';
import type { JobRecordBase, JobRef } from '../../data/jobs/record';
import type { PlanLimits } from '../../types/plans';
import { companyLimits } from '../company-limits';
import type { JobSource } from './enqueue';
import type { JobFile } from './output-files';
import { type AdvanceOptions, type JobStep, type StepDeps, type StepInput, stepError } from './worker-shell';

/**
 * The first step of a job type that reads a stored source (transcodes, transcriptions): claim the job (the
 * plan's limits read meanwhile), read the source as stored now (its earlier result read meanwhile), finish the job with the stored result of the
 * same content done before (billed 0) when that result still exists, else check the plan's size limit, probe
 * the media and check its duration limit. Errors: `SourceMissing`, `SourceTooLarge`, `SourceTooLong`, and
 * `SourceUnreadable` from the prober; the type's `accept` may throw its own.
 */
export interface SourceStepDeps extends StepDeps {
  probe: MediaProber;
}

export interface SourceStepInput extends StepInput {
  action: 'probe';
}

/** What a source step answers the state machine; a type's output adds its engine's input. */
export interface SourceStepOutput extends JobRef {
  reused: boolean;
  /** The source as probed (HeadObject): the content the job reads, the key of its reuse entry. */
  source?: { size: number; etag: string };
  durationSeconds?: number;
  /** How long this step ran, in milliseconds (billed as `computeMs.workers` when the job is done). */
  workerMs?: number;
}

/** What the finalize step of a source-reading type gets from the machine; a type's input adds its engine's. */
export interface SourceFinalizeInput extends JobRef {
  action: 'finalize';
  durationSeconds: number;
  /** The probed source size and ETag (absent only for executions started before they were passed on). */
  source?: { size: number; etag: string };
  /** The probe step's run time (absent for executions started before it was passed on). */
  workerMs?: number;
}

export const claimAndProbeSource = async <
  S extends string,
  R extends JobRecordBase<S> & { source: JobSource },
  E extends { sourceJobId: string },
  V,
>(
  step: JobStep<S, R, E, V>,
  options: {
    claim: AdvanceOptions<S, R>;
    reuse: {
      /** The reuse key of the content as probed. */
      key: (content: { size: number; etag: string }, job: R) => string;
      /** The stored file that must still exist for an entry to be reused. */
      file: (entry: E) => JobFile;
      /** What the job records of a reused entry. */
      set: (entry: E) => Partial<JobFields<R>>;
    };
    limits: (limits: PlanLimits) => { bytes: number; seconds: number };
    probe: MediaProber;
    /** The type's own check of the probed media (throws a step error). */
    accept?: (media: MediaProbe) => void;
  },
): Promise<
  { reused: true } | { reused: false; job: R; head: { size: number; etag: string }; media: MediaProbe }
> => {
  const { ref } = step;
  // The plan's limits are read with the claim, and the reuse entry of the content as enqueued with the
  // source's head; the content as stored now decides (read again only when it changed since).
  const [job, plan] = await Promise.all([step.advance(options.claim), companyLimits(ref.companyId)]);
  const { source } = job;
  const enqueued = options.reuse.key(source, job);
  const [head, early] = await Promise.all([
    headObject(source.bucket, source.fullPath),
    step.type.lifecycle.getReuse(ref.companyId, enqueued),
  ]);
  if (!head) throw stepError('SourceMissing', 'The source file no longer exists.');
  const key = options.reuse.key(head, job);
  const reuse = key === enqueued ? early : await step.type.lifecycle.getReuse(ref.companyId, key);
  const stored = async (entry: E) => {
    const file = options.reuse.file(entry);
    return (await headObject(file.bucket, file.fullPath)) !== undefined;
  };
  if (
    await step.reuseStored(reuse, stored, { from: options.claim.to, observed: job, set: options.reuse.set })
  ) {
    return { reused: true };
  }
  const limits = options.limits(plan);
  if (head.size > limits.bytes)
    throw stepError('SourceTooLarge', `The source is larger than ${limits.bytes} bytes.`);
  const media = await options.probe(source);
  options.accept?.(media);
  if (media.durationSeconds > limits.seconds) {
    throw stepError('SourceTooLong', `The source is longer than ${limits.seconds} seconds.`);
  }
  return { reused: false, job, head, media };
};
