/**
 * Sentence and part splitting shared by the spoken-text rewrite and speech synthesis.
 *
 * A sentence ends at `.`, `!` or `?` (with any closing quotes or brackets) followed by whitespace, except after
 * a common abbreviation (`Dr.`, `e.g.`, `etc.` …), a single capital initial, or inside a number (`3.14`).
 */

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'no',
  'fig',
  'approx',
  'inc',
  'ltd',
  'co',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

const isTerminal = (c: string) => c === '.' || c === '!' || c === '?';
const isClosing = (c: string) => c === '"' || c === "'" || c === ')' || c === ']' || c === '”' || c === '’';
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/** The word that ends at `end` (exclusive), without leading punctuation. */
const wordBefore = (text: string, end: number) => {
  let start = end;
  while (start > 0 && !isSpace(text[start - 1])) start--;
  return text.slice(start, end).replace(/^[("'“‘[]+/, '');
};

/** Splits text into trimmed sentences; text without a terminal mark is one sentence. */
export const splitSentences = (text: string): string[] => {
  const sentences: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (!isTerminal(c)) continue;
    let end = i + 1;
    while (end < text.length && (isTerminal(text[end] as string) || isClosing(text[end] as string))) end++;
    if (end < text.length && !isSpace(text[end])) continue; // 3.14, e.g., example.com
    if (c === '.') {
      const word = wordBefore(text, i).toLowerCase();
      if (ABBREVIATIONS.has(word) || /^[a-z]$/i.test(word)) {
        i = end - 1;
        continue;
      }
    }
    const sentence = text.slice(start, end).trim();
    if (sentence) sentences.push(sentence);
    start = end;
    i = end - 1;
  }
  const rest = text.slice(start).trim();
  if (rest) sentences.push(rest);
  return sentences;
};

/** Joins pieces with single spaces into as few groups of at most `max` characters as keep their order. */
const pack = (pieces: Iterable<string>, max: number): string[] => {
  const groups: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (!current) current = piece;
    else if (current.length + 1 + piece.length <= max) current = `${current} ${piece}`;
    else {
      groups.push(current);
      current = piece;
    }
  }
  if (current) groups.push(current);
  return groups;
};

/**
 * A sentence's words, a word longer than `max` cut hard into pieces of at most `max` UTF-16 code units, never
 * inside a character (a surrogate pair stays whole).
 */
function* words(sentence: string, max: number) {
  for (const word of sentence.split(/\s+/)) {
    let piece = '';
    for (const character of word) {
      if (piece.length + character.length > max) {
        yield piece;
        piece = '';
      }
      piece += character;
    }
    if (piece) yield piece;
  }
}

/**
 * Groups the sentences of `text` into parts of at most `max` characters, joined by single spaces; a sentence
 * longer than `max` is split at word boundaries. Joining the parts with spaces gives back the normalized text.
 * Lengths here are UTF-16 code units, never fewer than the code points the limits count (`speech-request.ts`):
 * a part within `max` units is within `max` characters.
 */
export const splitIntoParts = (text: string, max: number): string[] =>
  pack(
    splitSentences(text).flatMap((sentence) =>
      sentence.length > max ? pack(words(sentence, max), max) : [sentence],
    ),
    max,
  );
