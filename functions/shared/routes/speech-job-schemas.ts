import { lazy } from '../lazy';
import { SPEECH_JOB_MAX_CHARACTERS, SPEECH_JOB_STATUSES } from '../types/speech-jobs';
import { SPEECH_FORMATS } from '../types/speech-voices';
import * as z from '../zod';

/** Request and response shapes of the speech job routes (they become the OpenAPI document). */
const ONE_OF_MESSAGE = 'Send exactly one of `text` and `markdown`.';

export const createSpeechJobBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .strictObject({
      text: z
        .string()
        .min(1)
        .max(SPEECH_JOB_MAX_CHARACTERS)
        .optional()
        .describe(
          `Plain text to speak, 1 to ${SPEECH_JOB_MAX_CHARACTERS} characters (Unicode code points). ` +
            'Exactly one of `text` and `markdown`.',
        ),
      markdown: z
        .string()
        .min(1)
        .max(SPEECH_JOB_MAX_CHARACTERS)
        .optional()
        .describe(
          `CommonMark with GFM, at most ${SPEECH_JOB_MAX_CHARACTERS} characters: spoken in the form ` +
            'POST /v1/spoken-text answers, without its token cap (its spoken form must also fit ' +
            `${SPEECH_JOB_MAX_CHARACTERS} characters).`,
        ),
      voiceProfileId: z.string().min(1).max(64).optional().describe('A voice of GET /v1/speech/voices.'),
      format: z.enum(SPEECH_FORMATS).optional().describe('Audio format; `mp3` by default.'),
    })
    .superRefine((body, ctx) => {
      if ((body.text === undefined) === (body.markdown === undefined))
        ctx.addIssue({ code: 'custom', path: ['text'], message: ONE_OF_MESSAGE });
    })
    .describe('A long-form speech request: the text (or markdown), the voice and the format.'),
);

const fileRef = /* @__PURE__ */ lazy(() =>
  z.object({
    bucket: z.string().describe('Bucket of the file.'),
    fullPath: z.string().describe('Object path; download it with GET /v1/storage/url.'),
  }),
);

export const speechJobResultSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      audio: fileRef()
        .extend({
          size: z.number().int().nonnegative().describe('Bytes.'),
          format: z.enum(SPEECH_FORMATS),
        })
        .describe('The audio, one file.'),
      timings: fileRef()
        .extend({ sentences: z.number().int().nonnegative().describe('Sentences in the file.') })
        .describe(
          'JSON timing file: `[{text, start, end}]`, one entry a sentence in order, milliseconds from the ' +
            'start of the audio; the first starts at 0, each ends where the next starts, the last at the end.',
        ),
    })
    .describe('Set only when `status` is `done`: two stored objects of your company.'),
);

export const speechJobSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: z.string().describe('Job identifier (`sj_…`).'),
      status: z
        .enum(SPEECH_JOB_STATUSES)
        .describe('`pending` → `synthesizing` → `done`, `failed` or `canceled` (the three are final).'),
      voiceProfileId: z.string().describe('The voice.'),
      format: z.enum(SPEECH_FORMATS),
      characters: z.number().int().nonnegative().describe('Characters of the spoken text.'),
      progress: z
        .object({
          phase: z.enum(SPEECH_JOB_STATUSES).describe('Phase the job was in when progress was recorded.'),
          percent: z.number().min(0).max(100).optional().describe('Percent done, when known.'),
        })
        .nullable()
        .describe('Progress of the job.'),
      error: z
        .object({
          code: z
            .string()
            .describe(
              'Why the job failed: `synthesis_failed`, `timeout`, `interrupted`, `start_failed`, `internal`.',
            ),
          message: z.string().describe('Human-readable explanation.'),
        })
        .nullable()
        .describe('Set only when `status` is `failed`.'),
      reused: z
        .boolean()
        .describe('True when the result of an earlier identical request (text, voice, format) was reused.'),
      billedCharacters: z
        .number()
        .int()
        .nonnegative()
        .describe('`speech_characters` billed (0 for reused, failed and canceled jobs).'),
      durationSeconds: z.number().nullable().describe('Duration of the audio, once done.'),
      result: speechJobResultSchema().nullable(),
      createdAt: z.string().describe('When the job was enqueued (ISO 8601).'),
      updatedAt: z.string().describe('Last change (ISO 8601).'),
      finishedAt: z.string().nullable().describe('When the job reached a final state.'),
    })
    .describe('A long-form speech job. Read-only.'),
);

export const speechJobResponseSchema = /* @__PURE__ */ lazy(() => z.object({ job: speechJobSchema() }));
