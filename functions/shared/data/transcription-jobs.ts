import { lazy } from '../lazy';
import { JOB_ENTITIES } from '../types/job-entities';
import {
  TRANSCRIPTION_LANGUAGES,
  type TranscriptionLanguage,
  type TranscriptionResult,
} from '../types/transcriptions';
import * as zm from '../zod-mini';
import type { JobStoreConfig } from './jobs/lifecycle';
import { type JobRecordBase, jobRecordFields, type ReuseEntryBase, reuseEntryFields } from './jobs/record';
import { indexPartitions, partitions } from './keys';
import { jobSource, storedObject } from './schemas';

/**
 * Transcription jobs on the job engine (`data/jobs/`), in the company partition `CO#<companyId>#TRANSCRIPTION`:
 * `JOB#<jobId>` the job (`pending` → `transcribing` → `done` | `failed`), `QUEUE` the company's unfinished
 * transcriptions, `REUSE#<language>#<size>#<etag>` the result of an earlier transcription of the same content.
 */
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

/** A reuse entry: the stored result of an earlier transcription of the same content. */
export interface TranscriptionReuseEntry extends ReuseEntryBase {
  result: TranscriptionResult;
}

/** The result is the engine adapter's (`types/transcriptions.ts`); the item checks it is an object. */
const transcriptionResult = /* @__PURE__ */ lazy(() => storedObject<TranscriptionResult>());

const transcriptionJobSchema = /* @__PURE__ */ lazy(
  () =>
    zm.object({
      ...jobRecordFields<TranscriptionStatus>([...TRANSCRIPTION_UNFINISHED, ...TRANSCRIPTION_FINISHED]),
      language: zm.enum([...TRANSCRIPTION_LANGUAGES, 'auto']),
      source: jobSource(),
      result: zm.optional(transcriptionResult()),
      durationSeconds: zm.optional(zm.number()),
    }) satisfies zm.ZodMiniType<TranscriptionJobRecord>,
);

const transcriptionReuseSchema = /* @__PURE__ */ lazy(
  () =>
    zm.object({
      result: transcriptionResult(),
      ...reuseEntryFields(),
    }) satisfies zm.ZodMiniType<TranscriptionReuseEntry>,
);

export const transcriptionStore = {
  jobType: 'transcription',
  partition: partitions.transcriptions,
  entities: { job: JOB_ENTITIES.transcription, queue: 'transcription_queue', reuse: 'transcription_reuse' },
  schemas: { job: transcriptionJobSchema, reuse: transcriptionReuseSchema },
  unfinishedIndexPartition: indexPartitions.unfinishedTranscriptions(),
  unfinished: TRANSCRIPTION_UNFINISHED,
  finished: TRANSCRIPTION_FINISHED,
  meter: 'transcription_seconds',
  eventTypes: { done: 'transcription.done', failed: 'transcription.failed' },
  resultFields: ['result', 'durationSeconds'],
} satisfies JobStoreConfig<TranscriptionStatus, TranscriptionJobRecord, TranscriptionReuseEntry>;

/** What makes two transcriptions the same: the source content as probed and the language asked for. */
export const transcriptionReuseKey = (content: { language: string; size: number; etag: string }) =>
  `${content.language}#${content.size}#${content.etag.replace(/"/g, '')}`;
