import type { TranscriptionResult, TranscriptWord } from '../types/transcriptions';

/**
 * Transcripts: the engines' output as our words and text, the subtitle files, and the part of a result the
 * job item keeps. Pure functions.
 *
 * Every engine's output is read in Amazon Transcribe's JSON format: Transcribe writes it, and an engine in
 * its place writes the same format, so one conversion serves all.
 */

/** An item of Transcribe's `results.items`: times are strings; punctuation items carry no times. */
export interface TranscribeItem {
  type: 'pronunciation' | 'punctuation';
  start_time?: string;
  end_time?: string;
  alternatives: { content: string; confidence?: string }[];
  speaker_label?: string;
}

export interface TranscribeOutput {
  jobName?: string;
  status?: string;
  results: {
    language_code?: string;
    transcripts: { transcript: string }[];
    items: TranscribeItem[];
    speaker_labels?: unknown;
  };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Transcribe's items as our words, in order: one word per pronunciation item (its first, most likely
 * alternative), times and confidence as numbers; a punctuation item is appended to the text of the word
 * before it (`Hello,`), so the words read as the transcript does.
 */
export const wordsFromTranscribe = (output: TranscribeOutput): TranscriptWord[] => {
  const words: TranscriptWord[] = [];
  for (const item of output.results.items) {
    const best = item.alternatives[0];
    if (!best) continue;
    if (item.type === 'punctuation') {
      const last = words[words.length - 1];
      if (last) last.text += best.content;
      continue;
    }
    const start = Number(item.start_time);
    const end = Number(item.end_time);
    if (!Number.isFinite(start) || !Number.isFinite(end)) continue;
    const confidence = Number(best.confidence ?? 0);
    words.push({
      text: best.content,
      start: round3(start),
      end: round3(Math.max(start, end)),
      confidence: Number.isFinite(confidence) ? Math.min(1, Math.max(0, round3(confidence))) : 0,
    });
  }
  return words;
};

/** The whole transcript: Transcribe's own (with punctuation), or the words joined when it has none. */
export const textFromTranscribe = (output: TranscribeOutput, words: TranscriptWord[]): string => {
  const transcripts = output.results.transcripts.map((t) => t.transcript.trim()).filter(Boolean);
  return transcripts.length > 0 ? transcripts.join(' ') : words.map((w) => w.text).join(' ');
};

// Subtitles

/** At most this many characters per subtitle line, two lines per cue, and this long a cue. */
export const SUBTITLE_LINE_CHARS = 42;
export const SUBTITLE_MAX_LINES = 2;
export const SUBTITLE_MAX_CUE_SECONDS = 6;
/** A pause this long between two words starts a new cue. */
const CUE_BREAK_SECONDS = 1;

export interface Cue {
  start: number;
  end: number;
  lines: string[];
}

/** Greedy line filling: words in order, at most `width` characters a line (a longer word gets a line). */
const fillLines = (texts: string[], width: number): string[] => {
  const lines: string[] = [];
  for (const text of texts) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + 1 + text.length <= width)
      lines[lines.length - 1] = `${last} ${text}`;
    else lines.push(text);
  }
  return lines;
};

/**
 * The words as subtitle cues: a cue ends at a sentence end, at a pause, when it would last longer than
 * SUBTITLE_MAX_CUE_SECONDS, or when its text would need more than SUBTITLE_MAX_LINES lines of
 * SUBTITLE_LINE_CHARS characters.
 */
export const cuesFromWords = (words: TranscriptWord[]): Cue[] => {
  const cues: Cue[] = [];
  let current: TranscriptWord[] = [];
  const flush = () => {
    const first = current[0];
    const last = current[current.length - 1];
    if (first && last) {
      cues.push({
        start: first.start,
        end: last.end,
        lines: fillLines(
          current.map((w) => w.text),
          SUBTITLE_LINE_CHARS,
        ),
      });
    }
    current = [];
  };
  for (const word of words) {
    const first = current[0];
    const last = current[current.length - 1];
    if (first && last) {
      const lines = fillLines(
        [...current, word].map((w) => w.text),
        SUBTITLE_LINE_CHARS,
      );
      if (
        word.start - last.end >= CUE_BREAK_SECONDS ||
        word.end - first.start > SUBTITLE_MAX_CUE_SECONDS ||
        lines.length > SUBTITLE_MAX_LINES
      ) {
        flush();
      }
    }
    current.push(word);
    if (/[.!?]$/.test(word.text)) flush();
  }
  flush();
  return cues;
};

/** `HH:MM:SS<sep>mmm` of a time in seconds. */
export const subtitleTimestamp = (seconds: number, separator: ',' | '.'): string => {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
};

/** SubRip: numbered cues, `00:00:01,000 --> 00:00:02,500`, a blank line after each. */
export const toSrt = (cues: Cue[]): string =>
  cues
    .map(
      (cue, i) =>
        `${i + 1}\n${subtitleTimestamp(cue.start, ',')} --> ${subtitleTimestamp(cue.end, ',')}\n${cue.lines.join('\n')}\n`,
    )
    .join('\n');

/** WebVTT: the `WEBVTT` header, then cues `00:00:01.000 --> 00:00:02.500`. */
export const toVtt = (cues: Cue[]): string =>
  `WEBVTT\n\n${cues
    .map(
      (cue) =>
        `${subtitleTimestamp(cue.start, '.')} --> ${subtitleTimestamp(cue.end, '.')}\n${cue.lines.join('\n')}\n`,
    )
    .join('\n')}`;

// What the job item keeps

/**
 * The job item (and the reuse entry) keeps at most this many UTF-8 bytes of text and of serialized words,
 * so with everything else an item stays under half of DynamoDB's 400 KB in any language.
 */
export const INLINE_TEXT_BYTES = 80_000;
export const INLINE_WORDS_BYTES = 100_000;

/** The longest prefix of `text` of at most `max` UTF-8 bytes, never splitting a character. */
export const cutToBytes = (text: string, max: number): string => {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  let end = max;
  // Back up to the first byte of a character (continuation bytes are 0b10xxxxxx).
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
};

/**
 * The result as the job item keeps it: the text (cut at INLINE_TEXT_BYTES, `textTruncated` then set) and
 * the words when their JSON stays under INLINE_WORDS_BYTES (otherwise `null` with `wordsInFile`: they are
 * only in the JSON file).
 */
export const inlineResult = (options: {
  text: string;
  words: TranscriptWord[];
  language: string;
  files: TranscriptionResult['files'];
}): TranscriptionResult => {
  const text = cutToBytes(options.text, INLINE_TEXT_BYTES);
  const wordsFit = Buffer.byteLength(JSON.stringify(options.words)) <= INLINE_WORDS_BYTES;
  return {
    text,
    textTruncated: text.length < options.text.length,
    words: wordsFit ? options.words : null,
    wordsInFile: !wordsFit,
    wordCount: options.words.length,
    language: options.language,
    files: options.files,
  };
};
