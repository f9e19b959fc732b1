import type { SentenceMark, SentenceTiming } from '../types/speech-jobs';

/**
 * The timing file of a speech job from the sentence speech marks of its synthesis (Polly's, or the local
 * engine's in Polly's format): one JSON object a line, `time` the sentence's start in milliseconds. A
 * sentence ends where the next one starts, and the last one at the end of the audio, so the sentences cover
 * the audio without a gap: the first starts at 0 (silence before it belongs to it), the last ends at
 * `durationMs`.
 */
export const parseSentenceMarks = (text: string): SentenceMark[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SentenceMark)
    .filter((mark) => mark.type === 'sentence' && Number.isFinite(mark.time))
    .sort((a, b) => a.time - b.time);

export const timingsFromMarks = (marks: readonly SentenceMark[], durationMs: number): SentenceTiming[] => {
  const end = Math.round(durationMs);
  return marks.map((mark, i) => {
    const next = marks[i + 1];
    const start = i === 0 ? 0 : Math.min(Math.round(mark.time), end);
    const stop = next ? Math.min(Math.round(next.time), end) : end;
    return { text: mark.value, start, end: Math.max(start, stop) };
  });
};

/**
 * Sentence marks from the measured durations of sentences spoken one after the other (the local engine):
 * each starts where the ones before it end. `start`/`end` are byte offsets in the UTF-8 text, as Polly's.
 */
export const marksFromDurations = (sentences: readonly string[], durationsMs: readonly number[]): string => {
  let time = 0;
  let offset = 0;
  const lines: string[] = [];
  sentences.forEach((value, i) => {
    const bytes = Buffer.byteLength(value);
    lines.push(
      JSON.stringify({ time: Math.round(time), type: 'sentence', start: offset, end: offset + bytes, value }),
    );
    time += durationsMs[i] ?? 0;
    offset += bytes + 1;
  });
  return `${lines.join('\n')}\n`;
};
