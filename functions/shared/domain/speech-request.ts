import { AppError } from '../errors';
import { identifierField } from '../fields';
import { lazy } from '../lazy';
import { SPEECH_JOB_MAX_CHARACTERS } from '../types/speech-jobs';
import {
  DEFAULT_VOICE_PROFILE,
  SPEECH_FORMATS,
  VOICE_PROFILES,
  type VoiceProfile,
} from '../types/speech-voices';
import * as z from '../zod';

/**
 * What `POST /v1/speech` and `POST /v1/spoken-text` (and their workflow actions) take, declared once.
 *
 * A character is a Unicode code point, for the limits and for the meter alike: `😀` is one character, as it
 * is for JSON Schema's `maxLength` and for zod's string lengths. Polly bills "characters" of the text sent,
 * spaces and punctuation included (no SSML is sent); counting UTF-16 code units instead would bill an emoji
 * twice and let 2,049 emoji pass a 4,096 limit that bills 4,098. A part sent to the engine is bounded in
 * UTF-16 code units (`sentences.ts`), never fewer than its code points, so it stays within one call's limit
 * whichever way the engine counts.
 */
export const SPEECH_TEXT_MAX_CHARACTERS = 4096;
export const SPOKEN_TEXT_MAX_MARKDOWN_CHARACTERS = 8000;
/**
 * Deepest nesting of block quotes, lists, footnotes and inline marks (emphasis, strong, strikethrough, links)
 * the spoken-text rewrite reads. Real documents nest a few levels; thousands of `>` would overflow the parser's
 * and the rewrite's stacks.
 */
export const MARKDOWN_MAX_NESTING = 50;

/** Characters as the limits and the meter count them: Unicode code points. */
export const characterCount = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/**
 * The one rule for text to speak (`POST /v1/speech`, `POST /v1/speech/jobs`, the spoken form of markdown and
 * the workflow actions that take them): it holds at least one letter, digit or symbol (an emoji is one) —
 * white space, punctuation, invisible format and control characters alone have nothing to speak — and no
 * lone UTF-16 surrogate (half of a character, which no engine can read nor UTF-8 store).
 */
// Built by the first text checked: a pattern of Unicode properties costs about 0.1 ms to build.
const SPEAKABLE = /* @__PURE__ */ lazy(() => /[\p{L}\p{N}\p{S}]/u);
const LONE_SURROGATE = /* @__PURE__ */ lazy(() => /\p{Cs}/u);

export const SPEECH_TEXT_SILENT_MESSAGE =
  'The text has nothing to speak: only white space, punctuation or invisible characters.';
export const SPEECH_TEXT_SURROGATE_MESSAGE =
  'The text holds a lone UTF-16 surrogate, half of a character: send well-formed Unicode.';

/** Why `text` cannot be spoken, or undefined when it can. */
export const speechTextProblem = (text: string): string | undefined => {
  if (LONE_SURROGATE().test(text)) return SPEECH_TEXT_SURROGATE_MESSAGE;
  if (!SPEAKABLE().test(text)) return SPEECH_TEXT_SILENT_MESSAGE;
  return undefined;
};

/** A text field of a speech request: 1 to `max` characters that `speechTextProblem` accepts. */
const speechTextSchema = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .superRefine((text, ctx) => {
      const problem = speechTextProblem(text);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

export const speechRequestSchema = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    text: speechTextSchema(SPEECH_TEXT_MAX_CHARACTERS).describe(
      `The text to speak: 1 to ${SPEECH_TEXT_MAX_CHARACTERS} characters (Unicode code points: an emoji is ` +
        'one) with at least one letter, digit or symbol (not only white space, punctuation or invisible ' +
        'characters), and no lone UTF-16 surrogate.',
    ),
    voiceProfileId: identifierField('A voice of GET /v1/speech/voices.').optional(),
    format: z.enum(SPEECH_FORMATS).optional().describe('Audio format; `mp3` by default.'),
  }),
);

export const spokenTextRequestSchema = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    markdown: z
      .string()
      .max(SPOKEN_TEXT_MAX_MARKDOWN_CHARACTERS)
      .describe(
        `CommonMark with GFM, at most ${SPOKEN_TEXT_MAX_MARKDOWN_CHARACTERS} characters, with block quotes, ` +
          `lists, footnotes and inline marks nested at most ${MARKDOWN_MAX_NESTING} deep, and within the ` +
          'bounds on work of docs/speech.md (for example at most 500 emphasis runs or brackets in one paragraph).',
      ),
  }),
);

/** The voice profile of `id` (the default when absent); an unknown id is 400 naming GET /v1/speech/voices. */
export const voiceOf = (id: string | undefined, pointer = '/body/voiceProfileId'): VoiceProfile => {
  if (id === undefined) return DEFAULT_VOICE_PROFILE;
  const voice = VOICE_PROFILES.find((v) => v.id === id);
  if (voice) return voice;
  throw new AppError('validation_failed', 'Unknown voice profile; list them with GET /v1/speech/voices.', {
    errors: [{ pointer, message: `Unknown voice profile ${id}; see GET /v1/speech/voices.` }],
  });
};

/** `POST /v1/speech/jobs` and `actions/media/speech`: exactly one of `text` and `markdown`. */
const ONE_OF_MESSAGE = 'Send exactly one of `text` and `markdown`.';

export const createSpeechJobBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .strictObject({
      text: speechTextSchema(SPEECH_JOB_MAX_CHARACTERS)
        .optional()
        .describe(
          `Plain text to speak, 1 to ${SPEECH_JOB_MAX_CHARACTERS} characters (Unicode code points) with at ` +
            'least one letter, digit or symbol and no lone UTF-16 surrogate. Exactly one of `text` and `markdown`.',
        ),
      markdown: z
        .string()
        .min(1)
        .max(SPEECH_JOB_MAX_CHARACTERS)
        .optional()
        .describe(
          `CommonMark with GFM, at most ${SPEECH_JOB_MAX_CHARACTERS} characters: spoken in the form ` +
            'POST /v1/spoken-text answers, without its token cap (its spoken form must also fit ' +
            `${SPEECH_JOB_MAX_CHARACTERS} characters), within the same nesting and work bounds.`,
        ),
      voiceProfileId: identifierField('A voice of GET /v1/speech/voices.').optional(),
      format: z.enum(SPEECH_FORMATS).optional().describe('Audio format; `mp3` by default.'),
      timings: z
        .boolean()
        .optional()
        .describe(
          'Whether the job also writes the timing file of its sentences (`result.timings`); `true` by ' +
            'default. Price: the timings are a second synthesis pass over the whole text (the speech engine ' +
            'bills its characters again, as much as the audio), so `false` halves the engine cost of a job ' +
            'that needs only the audio; `speech_characters` counts the text once either way. With `false` ' +
            '`result.timings` is `null`.',
        ),
    })
    .superRefine((body, ctx) => {
      if ((body.text === undefined) === (body.markdown === undefined))
        ctx.addIssue({ code: 'custom', path: ['text'], message: ONE_OF_MESSAGE });
    })
    .describe('A long-form speech request: the text (or markdown), the voice, the format and the timings.'),
);
