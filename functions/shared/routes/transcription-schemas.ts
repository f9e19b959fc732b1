import { lazy } from '../lazy';
import { TRANSCRIPTION_LANGUAGES } from '../types/transcriptions';
import * as z from '../zod';
import { COMMON_JOB_ERRORS, jobFileSchema, jobSourceFields, jobViewFields } from './job-routes';

/** Request and response shapes of the transcription routes (they become the OpenAPI document). */
const FINAL = ['done', 'failed'] as const;
const STATUSES = ['pending', 'transcribing', ...FINAL] as const;

export const transcriptionLanguageSchema = /* @__PURE__ */ lazy(() =>
  z
    .enum([...TRANSCRIPTION_LANGUAGES, 'auto'])
    .describe(
      'BCP-47 code of the spoken language, or `auto` to let the engine identify it (Amazon Transcribe). The ' +
        'local engine transcribes `en-US` only and answers 400 `validation_failed` naming it for any other.',
    ),
);

export const createTranscriptionBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      ...jobSourceFields('audio (or video with sound)'),
      language: transcriptionLanguageSchema().optional().describe('Defaults to `en-US`.'),
    })
    .strict()
    .describe('A speech-to-text request for one of your stored files.'),
);

const wordSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      text: z.string().describe('The word, with the punctuation that follows it.'),
      start: z.number().nonnegative().describe('Start, in seconds from the beginning of the audio.'),
      end: z.number().nonnegative().describe('End, in seconds.'),
      confidence: z.number().min(0).max(1).describe('Engine confidence from 0 to 1.'),
    })
    .describe('One recognised word.'),
);

export const transcriptionResultSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      text: z.string().describe('The whole transcript (its first 80,000 bytes when `textTruncated`).'),
      textTruncated: z.boolean().describe('True when `text` was cut; the JSON file holds all of it.'),
      words: z
        .array(wordSchema())
        .nullable()
        .describe('Every word in order; null for very long audio, whose words are only in the JSON file.'),
      wordsInFile: z
        .boolean()
        .describe('True when `words` is null because the words are only in the JSON file (`files.json`).'),
      wordCount: z.number().int().nonnegative().describe('Number of words recognised.'),
      language: z.string().describe('Language transcribed (the identified one for `auto`).'),
      files: z
        .object({
          json: jobFileSchema().describe('The transcript as JSON: `{text, language, words}`.'),
          srt: jobFileSchema().describe('SubRip subtitles.'),
          vtt: jobFileSchema().describe('WebVTT subtitles.'),
        })
        .describe('The result files, stored objects of your company.'),
    })
    .describe('Set only when `status` is `done`.'),
);

export const transcriptionJobSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      ...jobViewFields({
        statuses: STATUSES,
        final: FINAL,
        lifecycle: '`pending` → `transcribing` → `done` or `failed` (both final).',
        errorCodes: [
          'source_unreadable',
          'source_no_audio',
          'source_too_large',
          'source_too_long',
          'source_missing',
          'transcription_failed',
          ...COMMON_JOB_ERRORS,
        ],
        reused:
          'True when the result of an earlier transcription of the same content and language was reused.',
      }),
      language: transcriptionLanguageSchema(),
      source: jobFileSchema().describe('The stored source file.'),
      billedSeconds: z
        .number()
        .int()
        .nonnegative()
        .describe('`transcription_seconds` billed (0 for reused and failed jobs).'),
      durationSeconds: z.number().nullable().describe('Duration of the audio, once probed.'),
      result: transcriptionResultSchema().nullable(),
    })
    .describe('A transcription job. Read-only.'),
);

export const transcriptionJobResponseSchema = /* @__PURE__ */ lazy(() =>
  z.object({ job: transcriptionJobSchema() }),
);
