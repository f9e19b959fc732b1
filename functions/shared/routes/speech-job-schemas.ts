import { lazy } from '../lazy';
import { SPEECH_JOB_FINISHED, SPEECH_JOB_STATUSES } from '../types/speech-jobs';
import { SPEECH_FORMATS } from '../types/speech-voices';
import * as z from '../zod';
import { COMMON_JOB_ERRORS, jobFileSchema, jobViewFields } from './job-routes';

/** Response shapes of the speech job routes (they become the OpenAPI document); the request's is in
 * `domain/speech-request.ts`, shared with the workflow action. */
export const speechJobResultSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      audio: jobFileSchema()
        .extend({
          size: z.number().int().nonnegative().describe('Bytes.'),
          format: z.enum(SPEECH_FORMATS),
        })
        .describe('The audio, one file.'),
      timings: jobFileSchema()
        .extend({ sentences: z.number().int().nonnegative().describe('Sentences in the file.') })
        .nullable()
        .describe(
          'JSON timing file: `[{text, start, end}]`, one entry a sentence in order, milliseconds from the ' +
            'start of the audio; the first starts at 0, each ends where the next starts, the last at the end. ' +
            '`null` for a job asked with `timings: false`.',
        ),
    })
    .describe('Set only when `status` is `done`: stored objects of your company.'),
);

export const speechJobSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      ...jobViewFields({
        statuses: SPEECH_JOB_STATUSES,
        final: SPEECH_JOB_FINISHED,
        lifecycle: '`pending` → `synthesizing` → `done`, `failed` or `canceled` (the three are final).',
        errorCodes: ['synthesis_failed', ...COMMON_JOB_ERRORS],
        reused:
          'True when the result of an earlier identical request (text, voice, format, timings) was reused.',
      }),
      voiceProfileId: z.string().describe('The voice.'),
      format: z.enum(SPEECH_FORMATS),
      characters: z.number().int().nonnegative().describe('Characters of the spoken text.'),
      timings: z.boolean().describe('Whether the job writes the timing file (`timings` of the request).'),
      billedCharacters: z
        .number()
        .int()
        .nonnegative()
        .describe('`speech_characters` billed (0 for reused, failed and canceled jobs).'),
      durationSeconds: z.number().nullable().describe('Duration of the audio, once done.'),
      result: speechJobResultSchema().nullable(),
    })
    .describe('A long-form speech job. Read-only.'),
);

export const speechJobResponseSchema = /* @__PURE__ */ lazy(() => z.object({ job: speechJobSchema() }));
