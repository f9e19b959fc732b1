import type { TranscribeItem, TranscribeOutput } from '../shared/domain/transcripts';

/**
 * The local recognizer's words in the format every transcription engine's output is read in (Amazon
 * Transcribe's JSON, `shared/domain/transcripts.ts`). Pure.
 */

/** A pocketsphinx word line (`word start end confidence`, `-time yes`) or a filler to skip. */
const FILLER = /^(<s>|<\/s>|<sil>|\[.*\]|\+\+.*\+\+)$/;

/**
 * pocketsphinx's `-time yes` output as Transcribe JSON: each word line becomes a pronunciation item
 * (alternate pronunciations `word(2)` named by the word, fillers and silences left out); the hypothesis
 * lines are not needed, the transcript is the words joined.
 */
export const transcribeOutputFromPocketsphinx = (stdout: string, languageCode: string): TranscribeOutput => {
  const items: TranscribeItem[] = [];
  for (const line of stdout.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length !== 4) continue;
    const [word = '', start = '', end = '', confidence = ''] = parts;
    if (![start, end, confidence].every((n) => /^-?\d+(\.\d+)?$/.test(n))) continue;
    if (FILLER.test(word)) continue;
    items.push({
      type: 'pronunciation',
      start_time: start,
      end_time: end,
      alternatives: [{ content: word.replace(/\(\d+\)$/, ''), confidence }],
    });
  }
  const transcript = items.map((i) => i.alternatives[0]?.content ?? '').join(' ');
  return {
    status: 'COMPLETED',
    results: { language_code: languageCode, transcripts: [{ transcript }], items },
  };
};
