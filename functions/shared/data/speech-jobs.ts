import { lazy } from '../lazy';
import { JOB_ENTITIES } from '../types/job-entities';
import {
  SPEECH_JOB_FINISHED,
  SPEECH_JOB_STATUSES,
  SPEECH_JOB_UNFINISHED,
  type SpeechJobResult,
  type SpeechJobStatus,
} from '../types/speech-jobs';
import { SPEECH_FORMATS, type SpeechFormat } from '../types/speech-voices';
import * as zm from '../zod-mini';
import { type JobRecordBase, jobRecordFields } from './jobs/lifecycle';
import { type ReuseEntryBase, reuseEntryFields } from './jobs/record';
import { indexPartitions, partitions } from './keys';
import { storedObject } from './schemas';

/**
 * The store of long-form speech jobs, a job type of the job engine (`domain/jobs/`), in the company partition
 * `CO#<companyId>#SPEECHJOB`:
 * - `JOB#<jobId>`: the job; `pending` → `synthesizing` (prepare step, with the lease) → `done` (finalize
 *   step, billing `speech_characters` in `billedSeconds` and writing the reuse entry in the same
 *   transaction), `failed`, or `canceled` by the tenant.
 * - `QUEUE`: the company's unfinished speech jobs.
 * - `REUSE#<voice>#<format>#<sha256 of the text>` (with `#notimings` after it for a job asked without
 *   timings): the result of an earlier job of the same request.
 * The text itself (up to 100,000 characters) is a file, never in the item (`textPath`).
 */
export interface SpeechJobRecord extends JobRecordBase<SpeechJobStatus> {
  voiceProfileId: string;
  format: SpeechFormat;
  /** Characters of the spoken text (Unicode code points): what a synthesis bills. */
  characters: number;
  /** SHA-256 (hex) of the spoken text: with the voice and format, what makes two requests the same. */
  textSha256: string;
  /**
   * Whether the job writes the timing file (`timings` of the request). Absent on jobs enqueued before the
   * choice existed: they all wrote it.
   */
  timings?: boolean;
  durationSeconds?: number;
  result?: SpeechJobResult;
}

export interface SpeechJobReuseEntry extends ReuseEntryBase {
  result: SpeechJobResult;
}

const speechJobSchema = /* @__PURE__ */ lazy(
  (): zm.ZodMiniType<SpeechJobRecord> =>
    zm.object({
      ...jobRecordFields<SpeechJobStatus>(SPEECH_JOB_STATUSES),
      voiceProfileId: zm.string(),
      format: zm.enum(SPEECH_FORMATS),
      characters: zm.number(),
      textSha256: zm.string(),
      timings: zm.optional(zm.boolean()),
      durationSeconds: zm.optional(zm.number()),
      result: zm.optional(storedObject<SpeechJobResult>()),
    }),
);

const speechJobReuseSchema = /* @__PURE__ */ lazy(
  (): zm.ZodMiniType<SpeechJobReuseEntry> =>
    zm.object({ result: storedObject<SpeechJobResult>(), ...reuseEntryFields() }),
);

export const SPEECH_JOB_STORE = {
  jobType: 'speech_job',
  partition: partitions.speechJobs,
  entities: { job: JOB_ENTITIES.speechJob, queue: 'speech_job_queue', reuse: 'speech_job_reuse' },
  schemas: { job: speechJobSchema, reuse: speechJobReuseSchema },
  unfinishedIndexPartition: indexPartitions.unfinishedSpeechJobs(),
  unfinished: SPEECH_JOB_UNFINISHED,
  finished: SPEECH_JOB_FINISHED,
  meter: 'speech_characters',
  eventTypes: { done: 'speech_job.done', failed: 'speech_job.failed' },
  resultFields: ['result', 'durationSeconds'],
} as const;

/** Whether a job writes the timing file: unless asked without (older jobs all did). */
export const speechJobHasTimings = (job: Pick<SpeechJobRecord, 'timings'>) => job.timings !== false;

/**
 * What makes two speech jobs the same request: the spoken text, the voice, the format and whether it has
 * timings (a job without never reuses one with, nor the other way round; the key of a job with timings is
 * the one it had before the choice existed).
 */
export const speechJobReuseKey = (
  job: Pick<SpeechJobRecord, 'voiceProfileId' | 'format' | 'textSha256' | 'timings'>,
) => `${job.voiceProfileId}#${job.format}#${job.textSha256}${speechJobHasTimings(job) ? '' : '#notimings'}`;
