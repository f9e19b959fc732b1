import { speechRequestSchema, spokenTextRequestSchema } from '../domain/speech-request';
import { METERS } from '../types/meters';
import { SPEECH_FORMATS } from '../types/speech-voices';
import * as z from '../zod';
import { route } from './route-definition';

/**
 * The routes of speech and spoken text (group `speech`): a section of the route table (`route-table.ts` joins
 * the sections into `ROUTES`), imported alone by the group's function, so its bundle holds only its own
 * routes.
 */
export const SPEECH_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/speech',
    group: 'speech',
    operationId: 'synthesizeSpeech',
    sdk: 'speech.synthesize',
    summary: 'Synthesize text into a stored audio object',
    description:
      'Synchronous: when the call returns, the audio is one of your stored objects under ' +
      '`companies/<companyId>/speech/` (download it with GET /v1/storage/url). Text over 3000 characters is ' +
      'synthesized in parts split at sentence, then word, boundaries and joined into one file. A character ' +
      'is a Unicode code point (an emoji is one) for the 4096 limit and the bill alike. Bills ' +
      "`characters` (those of the parts sent to the engine) to the voice's `meter` once; 429 `speech_quota_exceeded` (Retry-After) when the month's " +
      'allowance would be passed; 403 `storage_limit_reached` past the storage allowance. A failed synthesis ' +
      'bills nothing and leaves nothing behind. Honours Idempotency-Key.',
    tag: 'Speech',
    scope: 'speech:write',
    get body() {
      return speechRequestSchema();
    },
    get response() {
      return z.object({
        bucket: z.string(),
        fullPath: z.string().describe('Stored object path under `companies/<companyId>/speech/`.'),
        size: z.number().int().min(0).describe('Bytes.'),
        format: z.enum(SPEECH_FORMATS),
        durationSeconds: z.number().min(0),
        characters: z.number().int().min(0).describe('Characters billed.'),
        meter: z.enum(METERS).describe('The meter that was billed.'),
      });
    },
    successStatus: 201,
    idempotency: 'keyed',
    errors: ['speech_quota_exceeded', 'storage_limit_reached', 'service_unavailable'],
    examples: { request: { text: 'Your order has shipped.', format: 'mp3' } },
    agent: {
      tool: 'synthesize_speech',
      title: 'Synthesize speech',
      description:
        'Turns up to 3,000 characters of text into one stored audio file at once, as POST /v1/speech: its ' +
        '`fullPath` and a signed download `url`. For longer text start create_speech_job.',
      effect: 'create',
    },
    workflow: {
      action: 'actions/speech/synthesize',
      maxDurationMs: 12_000,
      usesLimits: true,
      answersFile: true,
    },
  }),
  route({
    method: 'GET',
    path: '/v1/speech/voices',
    group: 'speech',
    operationId: 'listSpeechVoices',
    sdk: 'speech.voices.list',
    summary: 'List the voice profiles',
    tag: 'Speech',
    scope: 'speech:write',
    get response() {
      return z.object({
        voices: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            language: z.string(),
            gender: z.enum(['female', 'male']),
            engine: z.string(),
            meter: z.enum(METERS),
            default: z.boolean(),
          }),
        ),
      });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/spoken-text',
    group: 'speech',
    operationId: 'rewriteSpokenText',
    sdk: 'speech.rewriteSpokenText',
    summary: 'Rewrite markdown into its spoken form',
    description:
      'Parses the markdown (CommonMark with GFM) and rewrites it for the ear: headings become sentences, ' +
      'markers are dropped, links read as their text, lists as "First, … Second, …", tables row by row, code ' +
      'blocks are skipped with a short note, symbols and abbreviations are spoken and emoji dropped. The text ' +
      'is at most 1200 `o200k_base` tokens, cut at a sentence boundary (`truncated: true`); `parts` splits it ' +
      'at sentence boundaries into pieces of at most 4096 characters, ready for POST /v1/speech.',
    tag: 'Speech',
    scope: 'speech:write',
    idempotency: 'repeatable',
    get body() {
      return spokenTextRequestSchema();
    },
    get response() {
      return z.object({
        text: z.string().describe('The spoken form.'),
        tokens: z.number().int().min(0).describe('Length of `text` in o200k_base tokens (at most 1200).'),
        truncated: z
          .boolean()
          .describe('True when the text was cut at a sentence boundary to fit 1200 tokens.'),
        parts: z
          .array(z.string().max(4096))
          .describe('`text` split at sentence boundaries, each ≤ 4096 characters.'),
      });
    },
    examples: { request: { markdown: '# Release notes\n\n- **Faster** uploads & 20% less memory' } },
    workflow: { action: 'actions/speech/spoken-text', maxDurationMs: 5_000 },
  }),
] as const;
