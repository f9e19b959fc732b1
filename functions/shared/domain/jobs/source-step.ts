import type { MediaProbe, MediaProber } from '../../aws/mediaconvert';
import { headObject } from '../../aws/s3-objects';
import type { JobFields } from '../../data/jobs/moves';
import type { JobRecordBase, JobRef } from '../../data/jobs/record';
import type { PlanLimits } from '../../types/plans';
import { companyLimits } from '../company-limits';
import type { JobSource } from './enqueue';
import type { JobFile } from './output-files';
import {
  type AdvanceOptions,
  type handoverTo,
  type JobStep,
  type StepDeps,
  type StepInput,
  stepError,
} from './worker-shell';

/**
 * The first step of a job type that reads a stored source (transcodes, transcriptions): claim the job (a move,
 * or a read where the type's move after the probe is the step's only write), read
 * the plan's limits and the source as stored now (its head), probe the media, and read the stored result of
 * the same content done before; finish the job with that result (billed 0) when it still exists, else check
 * the plan's size limit and the media's duration. The source the execution carries (`enqueued`, the job's as
 * enqueued) is headed and probed while the job is claimed, and the earlier result is read while the media is
 * probed: one round trip before the probe's answer, where each read waited for the one before. A probe's
 * answer is dropped when the job is reused or refused (a probe reads the media's headers only). Errors:
 * `SourceMissing`, `SourceTooLarge`, `SourceTooLong`, and `SourceUnreadable` from the prober; the type's
 * `accept` may throw its own.
 */
export interface SourceStepDeps extends StepDeps {
  probe: MediaProber;
}

export interface SourceStepInput extends StepInput {
  action: 'probe';
  /** The execution's input: the job's source as enqueued (absent for executions started without it). */
  enqueued?: { source?: { bucket: string; fullPath: string } };
  /** On an Express machine: the Standard machine's ARN, where a source beyond its bounds goes on. */
  handoff?: string;
}

/** What a source step answers the state machine; a type's output adds its engine's input. */
export interface SourceStepOutput extends JobRef {
  reused: boolean;
  /** The source as probed (HeadObject): the content the job reads, the key of its reuse entry. */
  source?: { size: number; etag: string };
  durationSeconds?: number;
  /** How long this step ran, in milliseconds (billed as `computeMs.workers` when the job is done). */
  workerMs?: number;
  /** On an Express machine: the Standard execution that goes on with the attempt (`handoverTo`). */
  handoff?: ReturnType<typeof handoverTo>['handoff'];
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
    /** The step's input (its execution, the source as enqueued). */
    input: SourceStepInput;
    /**
     * How the step takes the job: a move made before the reads, or `read`, the job read in one of these
     * states (those the step starts from, and those a repeated step finds), so that the type's move after the
     * probe is the step's only write (decision 0055).
     */
    claim: AdvanceOptions<S, R> | { read: readonly S[] };
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
  const { executionArn, enqueued } = options.input;
  const read = (file: { bucket: string; fullPath: string }) => {
    const probing = options.probe(file);
    probing.catch(() => undefined); // Awaited only when the job goes on; dropped otherwise.
    return { head: headObject(file.bucket, file.fullPath), probing };
  };
  const early = enqueued?.source && read(enqueued.source);
  const { claim } = options;
  const [job, plan] = await Promise.all([
    'read' in claim
      ? step.read(claim.read)
      : step.advance({ ...claim, ...(executionArn ? { executionArn } : {}) }),
    companyLimits(ref.companyId),
    early?.head,
  ]);
  const { source } = job;
  const same = enqueued?.source?.bucket === source.bucket && enqueued.source.fullPath === source.fullPath;
  const { head: heading, probing } = early && same ? early : read(source);
  const head = await heading;
  if (!head) throw stepError('SourceMissing', 'The source file no longer exists.');
  const reuse = await step.type.lifecycle.getReuse(ref.companyId, options.reuse.key(head, job));
  const stored = async (entry: E) => {
    const file = options.reuse.file(entry);
    return (await headObject(file.bucket, file.fullPath)) !== undefined;
  };
  if (await step.reuseStored(reuse, stored, { from: job.status, set: options.reuse.set })) {
    return { reused: true };
  }
  const limits = options.limits(plan);
  if (head.size > limits.bytes)
    throw stepError('SourceTooLarge', `The source is larger than ${limits.bytes} bytes.`);
  const media = await probing;
  options.accept?.(media);
  if (media.durationSeconds > limits.seconds) {
    throw stepError('SourceTooLong', `The source is longer than ${limits.seconds} seconds.`);
  }
  return { reused: false, job, head, media };
};
