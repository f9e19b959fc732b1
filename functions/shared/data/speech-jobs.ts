import type { ComputeMs } from '../types/meters';
import {
  SPEECH_JOB_FINISHED,
  SPEECH_JOB_STATUSES,
  SPEECH_JOB_UNFINISHED,
  type SpeechJobResult,
  type SpeechJobStatus,
} from '../types/speech-jobs';
import { SPEECH_FORMATS, type SpeechFormat } from '../types/speech-voices';
import * as zm from '../zod-mini';
import type { BatchEntry } from './batch';
import { decodeItem } from './entity';
import { createJobLifecycle, type JobRecordBase, type JobRef, jobRecordFields } from './job-lifecycle';
import { listJobPage } from './job-pages';
import { indexPartitions, partitions } from './keys';
import { objectReference, storedObject } from './schemas';

/**
 * Long-form speech jobs: the shared job lifecycle (`job-lifecycle.ts`) configured for text to one audio file
 * with sentence timings, in the company partition `CO#<companyId>#SPEECHJOB`:
 * - `JOB#<jobId>`: the job; `pending` → `synthesizing` (prepare step, with the lease) → `done` (finalize
 *   step, billing `speech_characters` and writing the reuse entry in the same transaction), `failed`, or
 *   `canceled` by the tenant.
 * - `QUEUE`: the company's unfinished speech jobs.
 * - `REUSE#<voice>#<format>#<sha256 of the text>`: the result of an earlier job of the same request.
 * The text itself (up to 100,000 characters) is a file beside the job (`input`), never in the item.
 */
export interface SpeechJobRecord extends JobRecordBase<SpeechJobStatus> {
  voiceProfileId: string;
  format: SpeechFormat;
  /** Characters of the spoken text (Unicode code points), what a synthesis bills. */
  characters: number;
  /** SHA-256 (hex) of the spoken text: with the voice and format, what makes two requests the same. */
  textSha256: string;
  /** Where the spoken text is stored. */
  input: { bucket: string; fullPath: string };
  billedCharacters: number;
  durationSeconds?: number;
  result?: SpeechJobResult;
}

export interface SpeechJobReuseEntry {
  result: SpeechJobResult;
  sourceJobId: string;
  durationSeconds: number;
  createdAt: string;
}

const speechJobResult = storedObject<SpeechJobResult>();

const speechJobSchema = zm.object({
  ...jobRecordFields<SpeechJobStatus>(SPEECH_JOB_STATUSES),
  voiceProfileId: zm.string(),
  format: zm.enum(SPEECH_FORMATS),
  characters: zm.number(),
  textSha256: zm.string(),
  input: objectReference,
  billedCharacters: zm.number(),
  durationSeconds: zm.optional(zm.number()),
  result: zm.optional(speechJobResult),
}) satisfies zm.ZodMiniType<SpeechJobRecord>;

const speechJobReuseSchema = zm.object({
  result: speechJobResult,
  sourceJobId: zm.string(),
  durationSeconds: zm.number(),
  createdAt: zm.string(),
}) satisfies zm.ZodMiniType<SpeechJobReuseEntry>;

export const speechJobs = createJobLifecycle<SpeechJobStatus, SpeechJobRecord, SpeechJobReuseEntry>({
  jobType: 'speech_job',
  partition: partitions.speechJobs,
  entities: { job: 'speech_job', queue: 'speech_job_queue', reuse: 'speech_job_reuse' },
  schemas: { job: speechJobSchema, reuse: speechJobReuseSchema },
  unfinishedIndexPartition: indexPartitions.unfinishedSpeechJobs(),
  unfinished: SPEECH_JOB_UNFINISHED,
  finished: SPEECH_JOB_FINISHED,
  meter: 'speech_characters',
  events: {
    types: { done: 'speech_job.done', failed: 'speech_job.failed' },
    view: (job) => toPublicSpeechJob(job),
  },
});

/** What makes two speech jobs the same request: the spoken text, the voice and the format. */
export const speechJobReuseKey = (job: Pick<SpeechJobRecord, 'voiceProfileId' | 'format' | 'textSha256'>) =>
  `${job.voiceProfileId}#${job.format}#${job.textSha256}`;

export const getSpeechJob = speechJobs.getJob;

/** The reuse entry of a request, for a batch read. */
export const speechJobReuseEntry = (
  job: Pick<SpeechJobRecord, 'companyId' | 'voiceProfileId' | 'format' | 'textSha256'>,
): BatchEntry<SpeechJobReuseEntry> => ({
  key: speechJobs.reuseKey(job.companyId, speechJobReuseKey(job)),
  decode: (item) => decodeItem('speech_job_reuse', speechJobReuseSchema, item),
});

export const getSpeechJobReuse = (job: Pick<SpeechJobRecord, 'companyId' | 'voiceProfileId' | 'format' | 'textSha256'>) =>
  speechJobs.getReuse(job.companyId, speechJobReuseKey(job));

/** A page of the company's speech jobs, newest first (`job-pages.ts`). */
export const listSpeechJobs = (companyId: string, request: { limit: number; cursor?: string | undefined }) =>
  listJobPage(speechJobs, companyId, request);

/** Prepare step: `pending` → `synthesizing`, taking the lease and recording the execution. */
export const startSynthesizing = (options: {
  job: JobRef;
  leaseUntil: Date;
  executionArn?: string;
  now: Date;
}) =>
  speechJobs.move(options.job, 'synthesizing', {
    from: ['pending'],
    change: {
      set: {
        status: 'synthesizing',
        leaseUntil: options.leaseUntil.toISOString(),
        executionArn: options.executionArn,
        progress: { phase: 'synthesizing', percent: 0 },
        updatedAt: options.now.toISOString(),
      },
    },
  });

/**
 * `synthesizing` → `done` with the result: a new synthesis bills its characters with the job's compute time
 * and writes the reuse entry (`reuse`); a reused result bills nothing. One transaction either way.
 */
export const completeSpeechJob = (options: {
  job: JobRef;
  result: SpeechJobResult;
  durationSeconds: number;
  billedCharacters: number;
  /** True when the result is an earlier job's (billed 0). */
  reused: boolean;
  computeMs?: ComputeMs;
  reuse?: { job: SpeechJobRecord; entry: SpeechJobReuseEntry };
  now: Date;
  observed?: SpeechJobRecord;
}) =>
  speechJobs.complete({
    ...(options.observed ? { observed: options.observed } : {}),
    job: options.job,
    done: 'done',
    from: ['synthesizing'],
    change: {
      set: {
        result: options.result,
        reused: options.reused,
        billedCharacters: options.billedCharacters,
        billedSeconds: options.billedCharacters,
        durationSeconds: options.durationSeconds,
        progress: { phase: 'done', percent: 100 },
      },
      remove: ['error'],
    },
    billedSeconds: options.billedCharacters,
    ...(options.computeMs ? { computeMs: options.computeMs } : {}),
    ...(options.reuse ? { reuse: { key: speechJobReuseKey(options.reuse.job), entry: options.reuse.entry } } : {}),
    now: options.now,
  });

/** Any unfinished state of this attempt → `failed` with an error code; clears the lease. */
export const failSpeechJob = (options: { job: JobRef; error: { code: string; message: string }; now: Date }) =>
  speechJobs.fail({ ...options, failed: 'failed' });

/** The tenant's cancel: the observed unfinished state → `canceled`, clearing the lease and the progress. */
export const cancelSpeechJob = (options: { job: SpeechJobRecord; now: Date }) =>
  speechJobs.finish({
    job: options.job,
    to: 'canceled',
    from: [options.job.status],
    change: { set: {}, remove: ['progress'] },
    now: options.now,
    observed: options.job,
  });

/** The job as the tenant sees it: `result` only when `done`, internals (execution, lease, text) hidden. */
export const toPublicSpeechJob = (job: SpeechJobRecord) => ({
  id: job.jobId,
  status: job.status,
  voiceProfileId: job.voiceProfileId,
  format: job.format,
  characters: job.characters,
  progress: job.progress ?? null,
  error: job.status === 'failed' && job.error ? job.error : null,
  reused: job.reused,
  billedCharacters: job.billedCharacters,
  durationSeconds: job.durationSeconds ?? null,
  result: job.status === 'done' && job.result ? job.result : null,
  createdAt: job.createdAt,
  updatedAt: job.updatedAt,
  finishedAt: job.finishedAt ?? null,
});
