import {
  type TranscodeJobRecord,
  type TranscodeReuseEntry,
  type TranscodeStatus,
  transcodeStore,
} from '../data/transcode-jobs';
import type { TranscodePreset } from '../types/transcodes';
import { enqueueJob } from './jobs/enqueue';
import { defineJobType } from './jobs/job-type';
import { type PublicTranscodeJob, toPublicJob } from './jobs/public-views';
import { transcodeMachine } from './transcode-presets';

/**
 * Transcode jobs: a job type of the engine (`domain/jobs/`). Decisions where the spec is silent:
 * - 429 `transcode_quota_exceeded` once the month's `transcode_seconds` reached the allowance (enqueue and
 *   retry), 429 `transcode_queue_full` at `transcodeQueueCap` unfinished jobs.
 * - Cancel of a finished job: 409 `transcode_job_not_cancelable` with the job's `jobStatus`; retry refusals:
 *   409 `transcode_job_not_retryable` with `jobStatus` (and `leaseUntil` for a live lease).
 * - Size and duration limits are enforced by the probe step (`source_too_large` / `source_too_long`), so the
 *   same rules apply to jobs from workflows and MCP.
 */

const TRANSCODE_FAILED = {
  code: 'transcode_failed',
  message: 'The media engine could not convert the source.',
};

export const transcodeJobs = defineJobType<
  TranscodeStatus,
  TranscodeJobRecord,
  TranscodeReuseEntry,
  PublicTranscodeJob
>({
  idPrefix: 'tc_',
  noun: 'transcode',
  activity: 'conversion',
  retryHint: 'retry the job',
  machine: 'transcode',
  // Audio-only presets start on the Express audio machine, which hands longer sources over (decision 0046).
  machineOf: (job) => transcodeMachine(job.preset, job.source.size),
  store: transcodeStore,
  view: toPublicJob,
  limits: { quota: (l) => l.transcodeSecondsPerMonth, queueCap: (l) => l.transcodeQueueCap },
  codes: {
    quotaExceeded: 'transcode_quota_exceeded',
    queueFull: 'transcode_queue_full',
    notCancelable: 'transcode_job_not_cancelable',
    notRetryable: 'transcode_job_not_retryable',
  },
  errors: {
    table: {
      TranscodeEngineFailed: TRANSCODE_FAILED,
      OutputMissing: { code: 'transcode_failed', message: 'The media engine produced no output.' },
    },
    enginePrefix: 'MediaConvert.',
    engineFailed: TRANSCODE_FAILED,
    gone: 'TranscodeJobGone',
  },
});

export const enqueueTranscode = (
  companyId: string,
  input: { fullPath: string; preset: TranscodePreset; bucket?: string | undefined },
  now: Date,
): Promise<TranscodeJobRecord> =>
  enqueueJob(transcodeJobs, companyId, { source: input, fields: () => ({ preset: input.preset }) }, now);
