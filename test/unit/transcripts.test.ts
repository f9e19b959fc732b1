import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { transcribeOutputFromPocketsphinx } from '../../functions/local/recognizer-output';
import {
  cuesFromWords,
  cutToBytes,
  INLINE_TEXT_BYTES,
  inlineResult,
  SUBTITLE_LINE_CHARS,
  SUBTITLE_MAX_CUE_SECONDS,
  SUBTITLE_MAX_LINES,
  subtitleTimestamp,
  type TranscribeOutput,
  textFromTranscribe,
  toSrt,
  toVtt,
  wordsFromTranscribe,
} from '../../functions/shared/domain/transcripts';
import type { TranscriptWord } from '../../functions/shared/types/transcriptions';

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/transcribe-output.json', import.meta.url), 'utf8'),
) as TranscribeOutput;

describe('Amazon Transcribe output as our words', () => {
  it('makes one word per pronunciation item, times and confidence as numbers, punctuation on the word before', () => {
    const words = wordsFromTranscribe(fixture);
    expect(words).toEqual([
      { text: 'Hello,', start: 0.04, end: 0.45, confidence: 0.998 },
      { text: 'Anna.', start: 0.45, end: 0.98, confidence: 0.871 },
      { text: 'Yes,', start: 2.31, end: 2.6, confidence: 0.999 },
      { text: 'the', start: 2.6, end: 2.79, confidence: 0.999 },
      { text: 'order', start: 2.79, end: 3.2, confidence: 0.996 },
      { text: 'shipped', start: 3.2, end: 3.74, confidence: 0.954 },
      { text: 'on', start: 3.74, end: 3.89, confidence: 0.999 },
      { text: 'Monday!', start: 3.89, end: 4.52, confidence: 0.9 },
    ]);
  });

  it("takes the most likely alternative and ignores speaker labels; the text is Transcribe's transcript", () => {
    const words = wordsFromTranscribe(fixture);
    expect(words.map((w) => w.text)).not.toContain('Ana');
    expect(textFromTranscribe(fixture, words)).toBe('Hello, Anna. Yes, the order shipped on Monday!');
    expect(words.map((w) => w.text).join(' ')).toBe(textFromTranscribe(fixture, words));
  });

  it('skips a leading punctuation item and items without times, and joins the words when there is no transcript', () => {
    const output: TranscribeOutput = {
      results: {
        transcripts: [],
        items: [
          { type: 'punctuation', alternatives: [{ content: '.' }] },
          {
            type: 'pronunciation',
            start_time: '1.5',
            end_time: '1.9',
            alternatives: [{ content: 'ok', confidence: '2' }],
          },
          { type: 'pronunciation', alternatives: [{ content: 'untimed' }] },
        ],
      },
    };
    const words = wordsFromTranscribe(output);
    expect(words).toEqual([{ text: 'ok', start: 1.5, end: 1.9, confidence: 1 }]);
    expect(textFromTranscribe(output, words)).toBe('ok');
  });

  it('reads pocketsphinx -time output as Transcribe JSON: fillers dropped, alternate pronunciations named by the word', () => {
    const stdout = [
      'go forward ten meters',
      '<s> 0.000 0.240 1.000000',
      '<sil> 0.250 0.450 0.706282',
      'go 0.460 0.630 0.997303',
      'forward(2) 0.640 1.160 0.996207',
      '[NOISE] 1.161 1.169 0.5',
      'ten 1.170 1.520 0.243981',
      'meters 1.530 2.110 0.806360',
      '</s> 2.120 2.600 1.000000',
    ].join('\n');
    const output = transcribeOutputFromPocketsphinx(stdout, 'en-US');
    const words = wordsFromTranscribe(output);
    expect(words.map((w) => w.text)).toEqual(['go', 'forward', 'ten', 'meters']);
    expect(words[1]).toEqual({ text: 'forward', start: 0.64, end: 1.16, confidence: 0.996 });
    expect(textFromTranscribe(output, words)).toBe('go forward ten meters');
    expect(output.results.language_code).toBe('en-US');
  });
});

const word = (text: string, start: number, end = start + 0.3): TranscriptWord => ({
  text,
  start,
  end,
  confidence: 0.9,
});

describe('subtitles', () => {
  it('formats timestamps as HH:MM:SS,mmm (SRT) and HH:MM:SS.mmm (WebVTT)', () => {
    expect(subtitleTimestamp(0, ',')).toBe('00:00:00,000');
    expect(subtitleTimestamp(4.52, ',')).toBe('00:00:04,520');
    expect(subtitleTimestamp(3723.0456, '.')).toBe('01:02:03.046');
    expect(subtitleTimestamp(59.9996, '.')).toBe('00:01:00.000');
  });

  it('ends a cue at a sentence end and at a pause', () => {
    const cues = cuesFromWords(wordsFromTranscribe(fixture));
    expect(cues).toEqual([
      { start: 0.04, end: 0.98, lines: ['Hello, Anna.'] },
      { start: 2.31, end: 4.52, lines: ['Yes, the order shipped on Monday!'] },
    ]);
    const paused = cuesFromWords([word('one', 0), word('two', 0.4), word('three', 2)]);
    expect(paused.map((c) => c.lines.join(' '))).toEqual(['one two', 'three']);
  });

  it(`keeps lines within ${SUBTITLE_LINE_CHARS} characters, ${SUBTITLE_MAX_LINES} lines and ${SUBTITLE_MAX_CUE_SECONDS} s a cue`, () => {
    const words = Array.from({ length: 120 }, (_, i) =>
      word(`word${i % 7 === 0 ? 'ish' : ''}${i}`, i * 0.31),
    );
    const cues = cuesFromWords(words);
    expect(cues.length).toBeGreaterThan(5);
    for (const cue of cues) {
      expect(cue.lines.length).toBeLessThanOrEqual(SUBTITLE_MAX_LINES);
      for (const line of cue.lines) expect(line.length).toBeLessThanOrEqual(SUBTITLE_LINE_CHARS);
      expect(cue.end - cue.start).toBeLessThanOrEqual(SUBTITLE_MAX_CUE_SECONDS);
    }
    expect(cues.flatMap((c) => c.lines).join(' ')).toBe(words.map((w) => w.text).join(' '));
  });

  it('writes SRT and WebVTT files', () => {
    const cues = cuesFromWords(wordsFromTranscribe(fixture));
    expect(toSrt(cues)).toBe(
      '1\n00:00:00,040 --> 00:00:00,980\nHello, Anna.\n\n2\n00:00:02,310 --> 00:00:04,520\nYes, the order shipped on Monday!\n',
    );
    expect(toVtt(cues)).toBe(
      'WEBVTT\n\n00:00:00.040 --> 00:00:00.980\nHello, Anna.\n\n00:00:02.310 --> 00:00:04.520\nYes, the order shipped on Monday!\n',
    );
    expect(toVtt([])).toBe('WEBVTT\n\n');
  });
});

describe('the result the job item keeps', () => {
  const files = {
    json: { bucket: 'b', fullPath: 'companies/c/transcriptions/j/a1/transcript.json' },
    srt: { bucket: 'b', fullPath: 'companies/c/transcriptions/j/a1/transcript.srt' },
    vtt: { bucket: 'b', fullPath: 'companies/c/transcriptions/j/a1/transcript.vtt' },
  };

  it('keeps text and words of ordinary audio whole', () => {
    const words = wordsFromTranscribe(fixture);
    const result = inlineResult({ text: 'Hello', words, language: 'en-US', files });
    expect(result).toMatchObject({ textTruncated: false, words, wordsInFile: false, wordCount: 8 });
  });

  it('stays far below the 400 KB item limit for hours of speech: words only in the file, text cut', () => {
    const words = Array.from({ length: 60_000 }, (_, i) => word(`somewhat${i}`, i * 0.4));
    const text = words.map((w) => w.text).join(' ');
    const result = inlineResult({ text, words, language: 'en-US', files });
    expect(result.words).toBeNull();
    expect(result.wordsInFile).toBe(true);
    expect(result.wordCount).toBe(60_000);
    expect(result.textTruncated).toBe(true);
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(INLINE_TEXT_BYTES);
    expect(text.startsWith(result.text)).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(100_000);
  });

  it('cuts text in bytes, never inside a character (scripts of 2, 3 and 4 bytes a character)', () => {
    for (const char of ['é', '語', '𝄞']) {
      const text = char.repeat(50_000);
      const result = inlineResult({ text, words: [], language: 'ja-JP', files });
      expect(result.textTruncated).toBe(true);
      expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(INLINE_TEXT_BYTES);
      expect(Buffer.byteLength(result.text)).toBeGreaterThan(INLINE_TEXT_BYTES - 4);
      expect(text.startsWith(result.text)).toBe(true);
    }
    expect(cutToBytes('a語b', 3)).toBe('a');
    expect(cutToBytes('a語b', 4)).toBe('a語');
    expect(cutToBytes('short', 100)).toBe('short');
  });
});
