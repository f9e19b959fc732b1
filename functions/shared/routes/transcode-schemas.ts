import { timestampField } from '../fields';
import { lazy } from '../lazy';
import { TRANSCODE_PRESETS } from '../types/transcodes';
import * as z from '../zod';
import { COMMON_JOB_ERRORS, jobFileSchema, jobSourceFields, jobViewFields } from './job-routes';

/** Request and response shapes of the media transform routes (they become the OpenAPI document). */
const FINAL = ['done', 'failed', 'canceled'] as const;
const STATUSES = ['pending', 'probing', 'transcoding', 'finalizing', ...FINAL] as const;

export const transcodePresetSchema = /* @__PURE__ */ lazy(() =>
  z
    .enum(TRANSCODE_PRESETS)
    .describe(
      'Output format: `mp4` (H.264 + AAC in MP4; audio-only sources give AAC in MP4), `ogg_opus` (Opus in Ogg, ' +
        '48 kHz stereo), `wav` (PCM 16-bit, 48 kHz stereo), `flac_16k_mono` (FLAC, 16 kHz, one channel).',
    ),
);

export const createTranscodeBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      ...jobSourceFields('source file (audio or video)'),
      preset: transcodePresetSchema(),
    })
    .strict()
    .describe('A media transform request for one of your stored files.'),
);

export const transcodeJobSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      ...jobViewFields({
        statuses: STATUSES,
        final: FINAL,
        lifecycle:
          '`pending` → `probing` → `transcoding` (→ `finalizing`) → `done`; `failed` and `canceled` are ' +
          'final too, and both can be retried.',
        errorCodes: [
          'source_unreadable',
          'source_too_large',
          'source_too_long',
          'source_missing',
          'transcode_failed',
          ...COMMON_JOB_ERRORS,
        ],
        reused: 'True when the output of an earlier conversion of the same content and preset was reused.',
      }),
      preset: transcodePresetSchema(),
      source: jobFileSchema().describe('The stored source file.'),
      output: jobFileSchema()
        .nullable()
        .describe(
          'The converted file, downloadable with GET /v1/storage/url; set only when `status` is `done`.',
        ),
      attempt: z.number().int().positive().describe('1 for the first run; each accepted retry adds 1.'),
      billedSeconds: z
        .number()
        .int()
        .nonnegative()
        .describe(
          '`transcode_seconds` billed for this attempt (0 for reused, failed and canceled attempts).',
        ),
      durationSeconds: z.number().nullable().describe('Duration of the source, once probed.'),
      leaseUntil: timestampField()
        .nullable()
        .describe('Until when a worker holds the job (ISO 8601); null when no worker does.'),
    })
    .describe('A media transform job. Read-only: change it only with cancel and retry.'),
);

export const transcodeJobResponseSchema = /* @__PURE__ */ lazy(() => z.object({ job: transcodeJobSchema() }));
