import { describe, expect, it } from 'vitest';
import { splitIntoParts } from '../../functions/shared/domain/sentences';
import { billedCharacters, SPEECH_CALL_MAX_CHARACTERS } from '../../functions/shared/domain/speech';
import {
  characterCount,
  createSpeechJobBodySchema,
  SPEECH_TEXT_MAX_CHARACTERS,
  speechRequestSchema,
} from '../../functions/shared/domain/speech-request';
import { findAction } from '../../functions/shared/domain/workflows/actions';
import { registerWorkflowActions } from '../../functions/shared/operations/workflow-actions';
import { ROUTES } from '../../functions/shared/routes/route-table';

/** One definition of a character (a code point) for the 4096 limit and the meter; text with something to say. */
const body = ROUTES.find((r) => r.operationId === 'synthesizeSpeech')?.body;
const pathsOf = (text: string) => {
  const result = speechRequestSchema().safeParse({ text });
  return result.success ? [] : result.error.issues.map((i) => i.path.join('/'));
};

describe('characters of POST /v1/speech', () => {
  it('is the schema of the route and of the workflow action', () => {
    expect(body).toBe(speechRequestSchema());
    registerWorkflowActions();
    expect(findAction('actions/speech/synthesize')?.input).toBe(speechRequestSchema());
  });

  it.each([
    ['emoji (two UTF-16 units each)', '😀'],
    ['a musical symbol', '𝄞'],
    ['a CJK extension B ideograph', '𠀀'],
  ])('accepts 4096 %s and bills 4096, refuses 4097 at /text', (_name, character) => {
    const limit = character.repeat(SPEECH_TEXT_MAX_CHARACTERS);
    expect(limit.length).toBe(2 * SPEECH_TEXT_MAX_CHARACTERS);
    expect(characterCount(limit)).toBe(SPEECH_TEXT_MAX_CHARACTERS);
    expect(pathsOf(limit)).toEqual([]);
    expect(billedCharacters(splitIntoParts(limit, SPEECH_CALL_MAX_CHARACTERS))).toBe(
      SPEECH_TEXT_MAX_CHARACTERS,
    );
    expect(pathsOf(limit + character)).toEqual(['text']);
  });

  it('bills 2,049 emoji as 2,049 characters, not 4,098', () => {
    const parts = splitIntoParts('😀'.repeat(2049), SPEECH_CALL_MAX_CHARACTERS);
    expect(parts.length).toBe(2);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(SPEECH_CALL_MAX_CHARACTERS);
    expect(billedCharacters(parts)).toBe(2049);
  });

  it('counts a mix of scripts by code point', () => {
    expect(characterCount('Grüße 👋🏽 日本')).toBe(11);
  });
});

describe('text with nothing to speak', () => {
  it.each([
    ['a space', ' '],
    ['a newline and a tab', '\n\t'],
    ['a no-break space', '\u00a0'],
    ['a zero-width space', '\u200b'],
    ['a byte order mark and a zero-width joiner', '\ufeff\u200d'],
    ['an ideographic space', '\u3000'],
    ['punctuation', '?'],
    ['punctuation and white space', ' ... !? — «» '],
    ['a lone high surrogate', '\ud800'],
    ['a letter beside a lone low surrogate', 'a\udc00'],
  ])('refuses %s at /text', (_name, text) => {
    expect(pathsOf(text)).toEqual(['text']);
  });

  it.each([
    ['a letter', ' a '],
    ['an emoji', '👍'],
    ['a digit among punctuation', '(1)'],
    ['a currency symbol', '€'],
  ])('accepts %s', (_name, text) => {
    expect(pathsOf(text)).toEqual([]);
  });

  it.each([
    ['punctuation', '...', 'nothing to speak'],
    ['a lone surrogate', 'Hi \ud800', 'lone UTF-16 surrogate'],
  ])('refuses %s in a speech job text by the same rule', (_name, text, message) => {
    const result = createSpeechJobBodySchema().safeParse({ text });
    expect(result.success ? [] : result.error.issues.map((i) => [i.path.join('/'), i.message])).toEqual([
      ['text', expect.stringContaining(message)],
    ]);
  });
});
