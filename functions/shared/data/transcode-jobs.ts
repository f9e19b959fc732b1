import { lazy } from '../lazy';
import { JOB_ENTITIES } from '../types/job-entities';
import {
  TRANSCODE_ENGINES,
  TRANSCODE_PRESETS,
  type TranscodeEngine,
  type TranscodePreset,
} from '../types/transcodes';
import * as zm from '../zod-mini';
import type { JobStoreConfig } from './jobs/lifecycle';
import { type JobRecordBase, jobRecordFields, reuseEntryFields } from './jobs/record';
import { indexPartitions, partitions } from './keys';
import { jobOutputFile, jobSource } from './schemas';

/**
 * Transcode jobs on the job engine (`data/jobs/`), in the company partition `CO#<companyId>#TRANSCODE`:
 * `JOB#<jobId>` the job (`pending` → `probing` → `transcoding` → `done`, or `failed` / `canceled`; only
 * executions of the earlier finalize pass `finalizing`), `QUEUE` the company's unfinished transcodes, `REUSE#<preset>#<size>#<etag>` the stored output
 * of an earlier conversion of the same content. Unfinished jobs are in `gsi1pk = TRANSCODE#UNFINISHED`.
 */
export const UNFINISHED_STATUSES = ['pending', 'probing', 'transcoding', 'finalizing'] as const;
export const FINISHED_STATUSES = ['done', 'failed', 'canceled'] as const;
export type TranscodeStatus = (typeof UNFINISHED_STATUSES)[number] | (typeof FINISHED_STATUSES)[number];

export interface TranscodeJobRecord extends JobRecordBase<TranscodeStatus> {
  preset: TranscodePreset;
  source: zm.output<ReturnType<typeof jobSource>>;
  output?: zm.output<ReturnType<typeof jobOutputFile>>;
  /** From the probe: seconds of media and whether the source has video. */
  durationSeconds?: number;
  hasVideo?: boolean;
  /** From the probe: the engine that converts this attempt (internal; the public job does not show it). */
  engine?: TranscodeEngine;
}

/** The stored output of an earlier conversion of the same content. */
const transcodeReuseSchema = /* @__PURE__ */ lazy(() =>
  zm.object({ output: jobOutputFile(), ...reuseEntryFields() }),
);
export type TranscodeReuseEntry = zm.output<ReturnType<typeof transcodeReuseSchema>>;

const transcodeJobSchema = /* @__PURE__ */ lazy(
  () =>
    zm.object({
      ...jobRecordFields<TranscodeStatus>([...UNFINISHED_STATUSES, ...FINISHED_STATUSES]),
      preset: zm.enum(TRANSCODE_PRESETS),
      source: jobSource(),
      output: zm.optional(jobOutputFile()),
      durationSeconds: zm.optional(zm.number()),
      hasVideo: zm.optional(zm.boolean()),
      engine: zm.optional(zm.enum(TRANSCODE_ENGINES)),
    }) satisfies zm.ZodMiniType<TranscodeJobRecord>,
);

export const transcodeStore = {
  jobType: 'transcode',
  partition: partitions.transcodes,
  entities: { job: JOB_ENTITIES.transcode, queue: 'transcode_queue', reuse: 'transcode_reuse' },
  schemas: { job: transcodeJobSchema, reuse: transcodeReuseSchema },
  unfinishedIndexPartition: indexPartitions.unfinishedTranscodes(),
  unfinished: UNFINISHED_STATUSES,
  finished: FINISHED_STATUSES,
  meter: 'transcode_seconds',
  eventTypes: { done: 'transcode.done', failed: 'transcode.failed', canceled: 'transcode.canceled' },
  resultFields: ['output'],
} satisfies JobStoreConfig<TranscodeStatus, TranscodeJobRecord, TranscodeReuseEntry>;

/** What makes two conversions the same: the source content as probed (size, ETag) and the preset. */
export const transcodeReuseKey = (content: { preset: string; size: number; etag: string }) =>
  `${content.preset}#${content.size}#${content.etag.replace(/"/g, '')}`;
