import type { ComputeMs } from '../types/meters';
import {
  TRANSCRIPTION_LANGUAGES,
  type TranscriptionLanguage,
  type TranscriptionResult,
} from '../types/transcriptions';
import * as zm from '../zod-mini';
import { createJobLifecycle, type JobRecordBase, type JobRef, jobRecordFields } from './jobs/lifecycle';
import { listJobPage } from './jobs/pages';
import { indexPartitions, partitions } from './keys';
import { jobSource, storedObject } from './schemas';

/**
 * Transcription jobs: the shared job lifecycle (`job-lifecycle.ts`) configured for speech-to-text, in the
 * company partition `CO#<companyId>#TRANSCRIPTION`:
 * - `JOB#<jobId>`: the job; `pending` → `transcribing` (probe step, with the lease) → `done` (finalize step,
 *   billing `transcription_seconds` and writing the reuse entry in the same transaction) or `failed`.
 * - `QUEUE`: the company's unfinished transcriptions.
 * - `REUSE#<language>#<size>#<etag>`: the result of an earlier transcription of the same content.
 */
export const transcriptionPartition = partitions.transcriptions;

export const TRANSCRIPTION_UNFINISHED = ['pending', 'transcribing'] as const;
export const TRANSCRIPTION_FINISHED = ['done', 'failed'] as const;
export type TranscriptionStatus =
  | (typeof TRANSCRIPTION_UNFINISHED)[number]
  | (typeof TRANSCRIPTION_FINISHED)[number];

export interface TranscriptionSource {
  bucket: string;
  fullPath: string;
  size: number;
  etag: string;
  contentType?: string;
}

export interface TranscriptionJobRecord extends JobRecordBase<TranscriptionStatus> {
  language: TranscriptionLanguage;
  source: TranscriptionSource;
  result?: TranscriptionResult;
  durationSeconds?: number;
}

export type TranscriptionJobRef = JobRef;

/** The result is the engine adapter's (`types/transcriptions.ts`); the item checks it is an object. */
const transcriptionResult = storedObject<TranscriptionResult>();

const transcriptionJobSchema = zm.object({
  ...jobRecordFields<TranscriptionStatus>([...TRANSCRIPTION_UNFINISHED, ...TRANSCRIPTION_FINISHED]),
  language: zm.enum([...TRANSCRIPTION_LANGUAGES, 'auto']),
  source: jobSource,
  result: zm.optional(transcriptionResult),
  durationSeconds: zm.optional(zm.number()),
}) satisfies zm.ZodMiniType<TranscriptionJobRecord>;

const transcriptionReuseSchema = zm.object({
  result: transcriptionResult,
  sourceJobId: zm.string(),
  durationSeconds: zm.number(),
  createdAt: zm.string(),
}) satisfies zm.ZodMiniType<TranscriptionReuseEntry>;

export const transcriptionJobs = createJobLifecycle<
  TranscriptionStatus,
  TranscriptionJobRecord,
  TranscriptionReuseEntry
>({
  jobType: 'transcription',
  partition: transcriptionPartition,
  entities: { job: 'transcription_job', queue: 'transcription_queue', reuse: 'transcription_reuse' },
  schemas: { job: transcriptionJobSchema, reuse: transcriptionReuseSchema },
  unfinishedIndexPartition: indexPartitions.unfinishedTranscriptions(),
  unfinished: TRANSCRIPTION_UNFINISHED,
  finished: TRANSCRIPTION_FINISHED,
  meter: 'transcription_seconds',
  events: {
    types: { done: 'transcription.done', failed: 'transcription.failed' },
    view: (job) => toPublicTranscription(job),
  },
});

/** What makes two transcriptions the same: the source content as probed and the language asked for. */
export const transcriptionReuseKey = (content: { language: string; size: number; etag: string }) =>
  `${content.language}#${content.size}#${content.etag.replace(/"/g, '')}`;

/** A reuse entry: the stored result of an earlier transcription of the same content. */
export interface TranscriptionReuseEntry {
  result: TranscriptionResult;
  sourceJobId: string;
  durationSeconds: number;
  createdAt: string;
}

export const getTranscriptionJob = transcriptionJobs.getJob;

/** A page of the company's transcription jobs, newest first (`jobs/pages.ts`). */
export const listTranscriptionJobs = (
  companyId: string,
  request: { limit: number; cursor?: string | undefined },
) => listJobPage(transcriptionJobs, companyId, request);

/** Probe step: `pending` → `transcribing`, taking the lease and recording the execution and duration. */
export const startTranscribing = (options: {
  job: JobRef;
  leaseUntil: Date;
  executionArn?: string;
  now: Date;
}) =>
  transcriptionJobs.move(options.job, 'transcribing', {
    from: ['pending'],
    change: {
      set: {
        status: 'transcribing',
        leaseUntil: options.leaseUntil.toISOString(),
        executionArn: options.executionArn,
        progress: { phase: 'transcribing', percent: 0 },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** Probe step: what the probe found (the duration), and a renewed lease for the engine's run. */
export const recordTranscriptionProbe = (options: {
  job: JobRef;
  leaseUntil: Date;
  durationSeconds: number;
  now: Date;
}) =>
  transcriptionJobs.move(options.job, 'transcribing', {
    from: ['transcribing'],
    change: {
      set: {
        leaseUntil: options.leaseUntil.toISOString(),
        durationSeconds: options.durationSeconds,
        progress: { phase: 'transcribing', percent: 10 },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/** Finalize step: `transcribing` → `done` with the result, billing once and writing the reuse entry. */
export const completeTranscriptionJob = (options: {
  job: JobRef;
  result: TranscriptionResult;
  billedSeconds: number;
  /** The job's worker and media time, billed with its seconds. */
  computeMs?: ComputeMs;
  reuse?: { content: { language: string; size: number; etag: string }; entry: TranscriptionReuseEntry };
  now: Date;
  observed?: TranscriptionJobRecord;
}) =>
  transcriptionJobs.complete({
    ...(options.observed ? { observed: options.observed } : {}),
    job: options.job,
    done: 'done',
    from: ['transcribing'],
    change: {
      set: {
        result: options.result,
        reused: false,
        billedSeconds: options.billedSeconds,
        progress: { phase: 'done', percent: 100 },
      },
      remove: ['error'],
    },
    billedSeconds: options.billedSeconds,
    ...(options.computeMs ? { computeMs: options.computeMs } : {}),
    ...(options.reuse
      ? {
          reuse: {
            key: transcriptionReuseKey(options.reuse.content),
            entry: options.reuse.entry,
          },
        }
      : {}),
    now: options.now,
  });

/** Probe step, for content transcribed before: → `done` with the stored result, billing nothing. */
export const completeReusedTranscriptionJob = (options: {
  job: JobRef;
  result: TranscriptionResult;
  durationSeconds: number;
  now: Date;
  observed?: TranscriptionJobRecord;
}) =>
  transcriptionJobs.complete({
    ...(options.observed ? { observed: options.observed } : {}),
    job: options.job,
    done: 'done',
    from: ['transcribing'],
    change: {
      set: {
        result: options.result,
        reused: true,
        billedSeconds: 0,
        durationSeconds: options.durationSeconds,
        progress: { phase: 'done', percent: 100 },
      },
      remove: ['error'],
    },
    billedSeconds: 0,
    now: options.now,
  });

/** Any unfinished state of this attempt → `failed` with an error code; clears the lease. */
export const failTranscriptionJob = (options: {
  job: JobRef;
  error: { code: string; message: string };
  now: Date;
}) => transcriptionJobs.fail({ ...options, failed: 'failed' });

export const getTranscriptionReuse = (
  companyId: string,
  content: { language: string; size: number; etag: string },
) => transcriptionJobs.getReuse(companyId, transcriptionReuseKey(content));

/** The job as the tenant sees it: read-only, `result` only when `done`, internals (execution, lease) hidden. */
export const toPublicTranscription = (job: TranscriptionJobRecord) => ({
  id: job.jobId,
  status: job.status,
  language: job.language,
  source: { bucket: job.source.bucket, fullPath: job.source.fullPath },
  progress: job.progress ?? null,
  error: job.status === 'failed' && job.error ? job.error : null,
  reused: job.reused,
  billedSeconds: job.billedSeconds,
  durationSeconds: job.durationSeconds ?? null,
  result: job.status === 'done' && job.result ? job.result : null,
  createdAt: job.createdAt,
  updatedAt: job.updatedAt,
  finishedAt: job.finishedAt ?? null,
});
