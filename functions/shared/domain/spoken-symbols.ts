/**
 * Words for the symbols, amounts, dates and abbreviations of a document's text (never its URLs), so that a
 * speech engine reads "It costs $5, e.g. today." as "It costs 5 dollars, for example today." and not as a
 * string of marks. Each rule is one `replace`, applied in order; the golden cases of
 * `test/unit/spoken-symbols.test.ts` show every rule with its input. The patterns with Unicode property
 * classes are built by the first text spoken (building one costs about 0.1 ms), not when the module loads.
 */

import { lazy } from '../lazy';

/** Each currency's unit (one, many) and its hundredth (one, many). */
const CURRENCIES: Record<string, readonly [string, string, string, string]> = {
  $: ['dollar', 'dollars', 'cent', 'cents'],
  '€': ['euro', 'euros', 'cent', 'cents'],
  '£': ['pound', 'pounds', 'penny', 'pence'],
  '¥': ['yen', 'yen', 'sen', 'sen'],
};
const SCALES: Record<string, string> = {
  k: 'thousand',
  thousand: 'thousand',
  m: 'million',
  mn: 'million',
  million: 'million',
  b: 'billion',
  bn: 'billion',
  billion: 'billion',
  trillion: 'trillion',
};

/**
 * A symbol and its amount: digits grouped by commas in threes (so the comma of "$5, e.g." stays a comma), an
 * optional fraction, and an optional scale ("$2.5 billion", "$3k", "€4M"). Group 4, the scale, is only taken
 * when no letter follows it.
 */
const AMOUNT = /* @__PURE__ */ lazy(
  () =>
    /([$€£¥])\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:\s?(thousand|million|billion|trillion|bn|mn|[kmb])(?![\p{L}\p{N}]))?/giu,
);

const plural = (n: string, one: string, many: string) => (n === '1' ? `${n} ${one}` : `${n} ${many}`);

const amountInWords = (
  symbol: string,
  whole: string,
  fraction: string | undefined,
  scale: string | undefined,
) => {
  const [one, many, hundredth, hundredths] = CURRENCIES[symbol] as readonly [string, string, string, string];
  if (scale) {
    const amount = fraction === undefined ? whole : `${whole}.${fraction}`;
    return `${amount} ${SCALES[scale.toLowerCase()] as string} ${many}`;
  }
  if (fraction === undefined) return plural(whole, one, many);
  if (fraction.length !== 2) return `${whole}.${fraction} ${many}`;
  const cents = String(Number(fraction));
  if (cents === '0') return plural(whole, one, many);
  const centsInWords = plural(cents, hundredth, hundredths);
  return whole === '0' ? centsInWords : `${plural(whole, one, many)} and ${centsInWords}`;
};

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const MONTH_ABBREVIATIONS: Record<string, string> = Object.fromEntries(
  MONTHS.map((month) => [month.slice(0, 3).toLowerCase(), month]).concat([['sept', 'September']]),
);

/** An ISO 8601 calendar date, not part of a longer run of digits or a time stamp's date that has a time. */
const ISO_DATE = /* @__PURE__ */ lazy(
  () => /(?<![\p{L}\p{N}-])(\d{4})-(\d{2})-(\d{2})(?![\p{L}\p{N}]|-\d)/gu,
);
/** A month abbreviation with its period, followed by a day: "Jan. 5", "Sept. 30". */
const MONTH_ABBREVIATION = /\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.\s?(?=\d)/g;

const isoDateInWords = (match: string, year: string, month: string, day: string) => {
  const name = MONTHS[Number(month) - 1];
  const d = Number(day);
  return name && d >= 1 && d <= 31 ? `${name} ${d}, ${year}` : match;
};

const ABBREVIATION_WORDS: Record<string, string> = {
  'e.g': 'for example',
  'i.e': 'that is',
  etc: 'et cetera',
  vs: 'versus',
  approx: 'approximately',
};
/** An abbreviation with its period, not inside a longer word; `$2`: the letter of the word that follows. */
const ABBREVIATION = /* @__PURE__ */ lazy(
  () => /\b(e\.g|i\.e|etc|vs|approx)\.(?![\p{L}\p{N}])(?=(?:\s+["'(“‘]?(\p{L}))?)/giu,
);

const abbreviationInWords = (_m: string, abbreviation: string, nextLetter: string | undefined) => {
  // (The pattern ignores case, so the capital that starts a new sentence is checked here.)
  const nextSentence = nextLetter !== undefined && /\p{Lu}/u.test(nextLetter);
  const words = ABBREVIATION_WORDS[abbreviation.toLowerCase()] as string;
  // The period of `etc.` also ends the sentence when a new one follows; elsewhere the sentence's own
  // punctuation (or the full stop a block ends with) follows the words, never a second period.
  return abbreviation.toLowerCase() === 'etc' && nextSentence ? `${words}.` : words;
};

/** Words for symbols, amounts, dates and abbreviations, applied to the text of the document. */
export const speakSymbols = (text: string): string =>
  text
    // White space runs become one space first (the spoken text is normalized so anyway): the patterns below
    // that start with `\s*` or `\s+` would otherwise rescan a long run from each of its positions.
    .replace(/\s{2,}/g, ' ')
    .replace(AMOUNT(), (_m, symbol: string, whole: string, fraction?: string, scale?: string) =>
      amountInWords(symbol, whole, fraction, scale),
    )
    .replace(ISO_DATE(), isoDateInWords)
    .replace(MONTH_ABBREVIATION, (_m, month: string) => `${MONTH_ABBREVIATIONS[month.toLowerCase()]} `)
    .replace(/°\s?C\b/g, ' degrees Celsius')
    .replace(/°\s?F\b/g, ' degrees Fahrenheit')
    .replace(/°/g, ' degrees')
    .replace(/(\d)\s?%/g, '$1 percent')
    .replace(/%/g, ' percent ')
    .replace(ABBREVIATION(), abbreviationInWords)
    .replace(/\bvs(?=\s)/gi, 'versus')
    .replace(/\s*&\s*/g, ' and ')
    .replace(/\s*(?:→|->|⇒|=>)\s*/g, ' to ')
    .replace(/\s*(?:←|<-)\s*/g, ' from ')
    .replace(/\s*\+\s*(?=\d)/g, ' plus ')
    .replace(/\s*>=\s*(?=\d)/g, ' at least ')
    .replace(/\s*<=\s*(?=\d)/g, ' at most ')
    .replace(/\s+<\s*(?=\d)/g, ' below ')
    .replace(/\s+>\s*(?=\d)/g, ' above ')
    .replace(/\s*\|\|\s*/g, ' or ')
    .replace(/\s+=\s+/g, ' equals ')
    .replace(/(\S)@(\S)/g, '$1 at $2')
    .replace(/\s*©\ufe0f?\s*/g, ' copyright ')
    .replace(/®\ufe0f?/g, ' registered')
    .replace(/™\ufe0f?/g, ' trademark')
    .replace(/\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f|\u20e3/gu, '');
