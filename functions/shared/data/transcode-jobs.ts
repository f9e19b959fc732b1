import type { ComputeMs } from '../types/meters';
import {
  TRANSCODE_PRESETS,
  type TranscodeOutput,
  type TranscodePreset,
  type TranscodeSource,
} from '../types/transcodes';
import * as zm from '../zod-mini';
import type { BatchEntry } from './batch';
import { createJobLifecycle, jobRecordFields, type MoveOptions } from './jobs/lifecycle';
import { listJobPage } from './jobs/pages';
import { indexPartitions } from './keys';
import { jobSource } from './schemas';
import { transcodePartition } from './transcode-partition';
import { TranscodeQueueFullError } from './transcode-queue';
import { putTranscodeReuseItem, type TranscodeContent } from './transcode-reuse';
import { type ReuseEntry, transcodeOutputSchema, transcodeReuseSchema } from './transcode-schemas';
import { applyChange, type Change } from './update-expression';

/**
 * Transcode jobs (`JOB#<jobId>` of the company's transcode partition): the read model that the API routes,
 * the workers, the workflow action and the MCP tool share. Every state change is a conditional write on the
 * current status and attempt, so a race between cancel, retry and a worker resolves to exactly one legal
 * transition. Moves into and out of the unfinished states take or release a queue slot in the same
 * transaction (`transcode-queue.ts`).
 *
 * The moves between unfinished states are single `UpdateItem`s and return the job as DynamoDB wrote it
 * (`ALL_NEW`). A transaction cannot return values, so the tenant's moves from an observed record (cancel,
 * retry) return the record computed here from that record and the transition's own `Change`. The workers'
 * moves into a final state (complete, fail) return nothing: their callers hold only the job's reference.
 *
 * Unfinished jobs are also in the sparse index partition `gsi1pk = TRANSCODE#UNFINISHED` (removed on the
 * move to a final state), which operator sweeps and the local stack's start-up read.
 *
 * The conditional writes, the lease, the queue slot, billing and the unfinished index are the shared job
 * lifecycle (`job-lifecycle.ts`), configured here for transcodes.
 */
export const UNFINISHED_INDEX_PARTITION = indexPartitions.unfinishedTranscodes();

export const UNFINISHED_STATUSES = ['pending', 'probing', 'transcoding', 'finalizing'] as const;
export const FINISHED_STATUSES = ['done', 'failed', 'canceled'] as const;
export type TranscodeStatus = (typeof UNFINISHED_STATUSES)[number] | (typeof FINISHED_STATUSES)[number];

export interface TranscodeJobRecord {
  jobId: string;
  companyId: string;
  status: TranscodeStatus;
  preset: TranscodePreset;
  source: TranscodeSource;
  output?: TranscodeOutput;
  progress?: { phase: TranscodeStatus; percent?: number };
  error?: { code: string; message: string };
  attempt: number;
  reused: boolean;
  billedSeconds: number;
  /** ISO instant until which a worker holds the job; absent when no worker does. */
  leaseUntil?: string;
  executionArn?: string;
  /** From the probe: seconds of media and whether the source has video. */
  durationSeconds?: number;
  hasVideo?: boolean;
  createdAt: string;
  updatedAt: string;
  attemptStartedAt: string;
  finishedAt?: string;
}

/** One attempt of a job: what a worker step knows, and what every transition is conditional on. */
export interface TranscodeJobRef {
  companyId: string;
  jobId: string;
  attempt: number;
}

/** The job is not in a state (or attempt) the transition starts from. */
export class TranscodeTransitionRefusedError extends Error {
  constructor(jobId: string, to: string) {
    super(`Transcode job ${jobId} cannot move to ${to} from its current state`);
    this.name = 'TranscodeTransitionRefusedError';
  }
}

const transcodeJobSchema = zm.object({
  ...jobRecordFields<TranscodeStatus>([...UNFINISHED_STATUSES, ...FINISHED_STATUSES]),
  preset: zm.enum(TRANSCODE_PRESETS),
  source: jobSource,
  output: zm.optional(transcodeOutputSchema),
  durationSeconds: zm.optional(zm.number()),
  hasVideo: zm.optional(zm.boolean()),
}) satisfies zm.ZodMiniType<TranscodeJobRecord>;

export const transcodeJobs = createJobLifecycle<TranscodeStatus, TranscodeJobRecord, ReuseEntry>({
  jobType: 'transcode',
  partition: transcodePartition,
  entities: { job: 'transcode_job', queue: 'transcode_queue', reuse: 'transcode_reuse' },
  schemas: { job: transcodeJobSchema, reuse: transcodeReuseSchema },
  unfinishedIndexPartition: UNFINISHED_INDEX_PARTITION,
  unfinished: UNFINISHED_STATUSES,
  finished: FINISHED_STATUSES,
  meter: 'transcode_seconds',
  events: {
    types: { done: 'transcode.done', failed: 'transcode.failed', canceled: 'transcode.canceled' },
    view: (job) => toPublicJob(job),
  },
  errors: {
    refused: (jobId, to) => new TranscodeTransitionRefusedError(jobId, to),
    queueFull: () => new TranscodeQueueFullError(),
  },
});

export const transcodeJobKey = transcodeJobs.jobKey;
export const unfinishedIndexKey = transcodeJobs.unfinishedIndexKey;
export const toTranscodeJob = transcodeJobs.toJob;

/** A transcode job, for a batch read. */
export const transcodeJobEntry = (companyId: string, jobId: string): BatchEntry<TranscodeJobRecord> =>
  transcodeJobs.jobEntry(companyId, jobId);

export const getTranscodeJob = (companyId: string, jobId: string): Promise<TranscodeJobRecord | undefined> =>
  transcodeJobs.getJob(companyId, jobId);

/** A page of the company's transcode jobs, newest first (`jobs/pages.ts`). */
export const listTranscodeJobs = (
  companyId: string,
  request: { limit: number; cursor?: string | undefined },
) => listJobPage(transcodeJobs, companyId, request);

/**
 * Writes a new `pending` job and takes one slot of the company's queue, in one transaction; a full queue
 * throws `TranscodeQueueFullError` and writes nothing.
 */
export const createTranscodeJob = (job: TranscodeJobRecord, queueCap: number): Promise<void> =>
  transcodeJobs.createJob(job, queueCap);

type Transition = MoveOptions<TranscodeStatus>;

/** A move between unfinished states: one conditional `UpdateItem`, returning the job after the write. */
const moveUnfinished = (job: TranscodeJobRef, to: TranscodeStatus, transition: Transition) =>
  transcodeJobs.move(job, to, transition);

/** Probe step: `pending` → `probing`, taking the lease and recording the execution. */
export const claimTranscodeJob = (options: {
  job: TranscodeJobRef;
  leaseUntil: Date;
  executionArn?: string;
  now: Date;
}) =>
  moveUnfinished(options.job, 'probing', {
    from: ['pending'],
    change: {
      set: {
        status: 'probing',
        leaseUntil: options.leaseUntil.toISOString(),
        executionArn: options.executionArn,
        progress: { phase: 'probing' },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** Probe step: `probing` → `transcoding` with what the probe found. */
export const startTranscoding = (options: {
  job: TranscodeJobRef;
  leaseUntil: Date;
  durationSeconds: number;
  hasVideo: boolean;
  now: Date;
}) =>
  moveUnfinished(options.job, 'transcoding', {
    from: ['probing'],
    change: {
      set: {
        status: 'transcoding',
        leaseUntil: options.leaseUntil.toISOString(),
        durationSeconds: options.durationSeconds,
        hasVideo: options.hasVideo,
        progress: { phase: 'transcoding', percent: 0 },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** Media engine progress while `transcoding` (percent 0..100). */
export const recordTranscodeProgress = (options: { job: TranscodeJobRef; percent: number; now: Date }) =>
  moveUnfinished(options.job, 'transcoding', {
    from: ['transcoding'],
    change: {
      set: {
        progress: { phase: 'transcoding', percent: options.percent },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** Finalize step: `transcoding` → `finalizing`, renewing the lease. */
export const startFinalizing = (options: { job: TranscodeJobRef; leaseUntil: Date; now: Date }) =>
  moveUnfinished(options.job, 'finalizing', {
    from: ['transcoding'],
    change: {
      set: {
        status: 'finalizing',
        leaseUntil: options.leaseUntil.toISOString(),
        progress: { phase: 'finalizing', percent: 100 },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** What a conversion's move to `done` records as its reuse entry. */
export interface ReuseOfConversion {
  content: TranscodeContent;
  entry: ReuseEntry;
}

/**
 * Finalize step: `finalizing` → `done` with the output, billing `billedSeconds` (`transcode_seconds`) and
 * writing the reuse entry in the same transaction, so only a billed, finished conversion is ever reused.
 */
export const completeTranscodeJob = async (options: {
  job: TranscodeJobRef;
  output: TranscodeOutput;
  billedSeconds: number;
  /** The job's worker and media time, billed with its seconds. */
  computeMs?: ComputeMs;
  reuse?: ReuseOfConversion;
  now: Date;
  /** The job as the step read it (its event's data is computed from it). */
  observed?: TranscodeJobRecord;
}): Promise<void> => {
  const { job, output, billedSeconds, reuse, now } = options;
  await transcodeJobs.complete({
    job,
    done: 'done',
    from: ['finalizing'],
    change: {
      set: { output, reused: false, billedSeconds, progress: { phase: 'done', percent: 100 } },
      remove: ['error'],
    },
    billedSeconds,
    ...(options.computeMs ? { computeMs: options.computeMs } : {}),
    also: reuse ? [putTranscodeReuseItem(job.companyId, reuse.content, reuse.entry)] : [],
    now,
    ...(options.observed ? { observed: options.observed } : {}),
  });
};

/** Probe step, for content converted before: `probing` → `done` with the stored output, billing nothing. */
export const completeReusedTranscodeJob = async (options: {
  job: TranscodeJobRef;
  output: TranscodeOutput;
  now: Date;
  observed?: TranscodeJobRecord;
}): Promise<void> => {
  await transcodeJobs.finish({
    ...(options.observed ? { observed: options.observed } : {}),
    job: options.job,
    to: 'done',
    from: ['probing'],
    change: {
      set: {
        output: options.output,
        reused: true,
        billedSeconds: 0,
        progress: { phase: 'done', percent: 100 },
      },
      remove: ['error'],
    },
    now: options.now,
  });
};

/** Any unfinished state of this attempt → `failed` with an error code; clears the lease. */
export const failTranscodeJob = async (options: {
  job: TranscodeJobRef;
  error: { code: string; message: string };
  now: Date;
}): Promise<void> => {
  await transcodeJobs.fail({ ...options, failed: 'failed' });
};

/**
 * Tenant cancel: from the observed unfinished state of the observed attempt → `canceled`; clears the lease.
 * Returns the job as canceled.
 */
export const cancelTranscodeJob = async (options: {
  job: TranscodeJobRecord;
  now: Date;
}): Promise<TranscodeJobRecord> => {
  const { job, now } = options;
  const change = await transcodeJobs.finish({
    job,
    to: 'canceled',
    from: [job.status],
    change: { set: {} },
    now,
    observed: job,
  });
  return applyChange(job, change);
};

/** What a retry sets and clears of the previous attempt: one definition for the write and the record. */
const retryChange = (attempt: number, now: Date): Change => ({
  set: {
    status: 'pending',
    attempt: attempt + 1,
    reused: false,
    billedSeconds: 0,
    progress: { phase: 'pending' },
    updatedAt: now.toISOString(),
    attemptStartedAt: now.toISOString(),
  },
  remove: ['output', 'error', 'finishedAt', 'executionArn', 'leaseUntil'],
});

/**
 * Tenant retry: `failed|canceled` with no lease in the future → `pending` as attempt + 1, taking a queue slot
 * (conditional on the cap) in the same transaction. Clears the previous attempt's output, error and billing.
 * Returns the job as retried.
 */
export const retryTranscodeJob = async (options: {
  job: TranscodeJobRecord;
  queueCap: number;
  now: Date;
}): Promise<TranscodeJobRecord> => {
  const { job, queueCap, now } = options;
  return transcodeJobs.restart({
    job,
    from: ['failed', 'canceled'],
    change: retryChange(job.attempt, now),
    queueCap,
    now,
  });
};

/** The job as the tenant sees it: read-only, `output` only when `done`, internals (execution) hidden. */
export const toPublicJob = (job: TranscodeJobRecord) => ({
  id: job.jobId,
  status: job.status,
  preset: job.preset,
  source: { bucket: job.source.bucket, fullPath: job.source.fullPath },
  output:
    job.status === 'done' && job.output ? { bucket: job.output.bucket, fullPath: job.output.fullPath } : null,
  progress: job.progress ?? null,
  error: job.status === 'failed' && job.error ? job.error : null,
  attempt: job.attempt,
  reused: job.reused,
  billedSeconds: job.billedSeconds,
  durationSeconds: job.durationSeconds ?? null,
  leaseUntil: job.leaseUntil ?? null,
  createdAt: job.createdAt,
  updatedAt: job.updatedAt,
  finishedAt: job.finishedAt ?? null,
});
