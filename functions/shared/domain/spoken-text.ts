import type { Nodes, RootContent, Table } from 'mdast';
import { parseWithinNesting } from './markdown-nesting';
import { checkMarkdownWork } from './markdown-work';
import { splitIntoParts, splitSentences } from './sentences';
import { SPEECH_TEXT_MAX_CHARACTERS } from './speech-request';
import { speakSymbols } from './spoken-symbols';

/**
 * Markdown rewritten for the ear (`POST /v1/spoken-text`). The markdown is parsed with micromark + GFM into an
 * mdast tree and read node by node; the rules (documented with examples in docs/speech.md) are:
 * headings become sentences; emphasis, strikethrough and inline code lose their markers; links read as their
 * text (a bare URL as its host); images as their alt text; lists as "First, … Second, …"; tables row by row
 * with their headers; code blocks are replaced by a short note; block quotes are announced; footnotes are
 * read at the end; HTML is stripped; symbols and common abbreviations are spoken; emoji are dropped.
 */

export const SPOKEN_TEXT_MAX_TOKENS = 1200;
export const SPEECH_PART_MAX_CHARACTERS = SPEECH_TEXT_MAX_CHARACTERS;

const ORDINALS = [
  'First',
  'Second',
  'Third',
  'Fourth',
  'Fifth',
  'Sixth',
  'Seventh',
  'Eighth',
  'Ninth',
  'Tenth',
];
const ordinal = (index: number) => (index >= 0 && ORDINALS[index]) || `Number ${index + 1}`;

/** Inline code that is one punctuation mark ("use `:` to separate") is read by the mark's name. */
const CODE_SYMBOLS: Record<string, string> = {
  ':': 'colon',
  ';': 'semicolon',
  '.': 'dot',
  ',': 'comma',
  '-': 'dash',
  _: 'underscore',
  '*': 'asterisk',
  '/': 'slash',
  '\\': 'backslash',
  '|': 'pipe',
  '#': 'hash',
  '@': 'at sign',
  '&': 'ampersand',
  '=': 'equals sign',
  '~': 'tilde',
};

/** GitHub's alert block quotes (`> [!NOTE]`) are announced by their kind instead of "Quote". */
const ALERT = /^\s*\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i;

/**
 * Removes what `open` starts and the first `close` after it ends, as `/open[\s\S]*?close/g` would, in one pass:
 * once no `close` follows, none follows a later `open` either (the pattern would rescan to the end from each).
 */
const removeSpans = (text: string, open: RegExp, close: string) => {
  const lower = text.toLowerCase();
  let out = '';
  let from = 0;
  open.lastIndex = 0;
  for (let found = open.exec(lower); found; found = open.exec(lower)) {
    const end = lower.indexOf(close.replace('$1', found[1] ?? ''), found.index + found[0].length);
    if (end < 0) break;
    out += `${text.slice(from, found.index)} `;
    from = end + close.replace('$1', found[1] ?? '').length;
    open.lastIndex = from;
  }
  return out + text.slice(from);
};

/** Tags removed from raw HTML; what they enclose is kept. Linear in the HTML (no pattern rescans). */
const stripHtml = (html: string) =>
  removeSpans(removeSpans(removeSpans(html, /<!--/g, '-->'), /<(script|style)/g, '</$1>'), /</g, '>');

const hostOf = (url: string) => {
  try {
    const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`;
    const { hostname, protocol } = new URL(withScheme);
    if (protocol === 'mailto:') return url.replace(/^mailto:/i, '').replace('@', ' at ');
    return hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
};

/** Ends a block with a full stop unless it already ends with terminal punctuation. */
const asSentence = (text: string) => {
  const t = text.trim().replace(/[:;,]$/, '');
  if (!t) return '';
  return /[.!?]["')\]”’]*$/.test(t) ? t : `${t}.`;
};

interface Context {
  footnotes: Map<string, string>;
  /** Character references of raw HTML decoded (the parser's own table, loaded with it). */
  decode: (html: string) => string;
}

/** Raw HTML as read: tags dropped, character references (`&amp;`, `&#169;`) decoded, then spoken as text. */
const htmlText = (html: string, ctx: Context) => speakSymbols(ctx.decode(stripHtml(html)));

/**
 * Words for the emoji a table cell may hold alone (a support matrix's ✅ and ❌): in running text emoji are
 * dropped, but a cell of nothing else would otherwise read as "empty".
 */
const CELL_EMOJI: Record<string, string> = {
  '✅': 'yes',
  '✔': 'yes',
  '☑': 'yes',
  '👍': 'yes',
  '🟢': 'yes',
  '❌': 'no',
  '❎': 'no',
  '✖': 'no',
  '✗': 'no',
  '✘': 'no',
  '👎': 'no',
  '🔴': 'no',
  '⚠': 'warning',
  '🚧': 'in progress',
  '❓': 'unknown',
  '➖': 'none',
  '⭐': 'star',
};

/** The words of an emoji-only cell: each emoji's word, or "symbol" for one without. */
const emojiWords = (text: string) =>
  (text.match(/\p{Extended_Pictographic}/gu) ?? []).map((emoji) => CELL_EMOJI[emoji] ?? 'symbol').join(' ');

/** The text of a node as written, without any rule applied. */
const plainText = (node: Nodes): string =>
  'value' in node
    ? node.value
    : 'children' in node
      ? node.children.map((c) => plainText(c as Nodes)).join('')
      : '';

const inline = (node: Nodes, ctx: Context): string => {
  switch (node.type) {
    case 'text':
      return speakSymbols(node.value);
    case 'inlineCode':
      return CODE_SYMBOLS[node.value.trim()] ?? speakSymbols(node.value);
    case 'html':
      return htmlText(node.value, ctx);
    case 'break':
      return ' ';
    case 'image':
      return speakSymbols(node.alt ?? '');
    case 'imageReference':
      return speakSymbols(node.alt ?? '');
    case 'link': {
      const text = node.children.map((c) => inline(c, ctx)).join('');
      const bare = node.children.length === 1 && node.children[0]?.type === 'text';
      const raw = bare ? (node.children[0] as { value: string }).value : '';
      if (
        !text.trim() ||
        (bare && (raw === node.url || `mailto:${raw}` === node.url || `http://${raw}` === node.url))
      )
        return hostOf(node.url);
      return text;
    }
    case 'footnoteReference':
      return '';
    default:
      return 'children' in node ? node.children.map((c) => inline(c as Nodes, ctx)).join('') : '';
  }
};

const tableText = (table: Table, ctx: Context): string[] => {
  const [head, ...rows] = table.children;
  const headers = (head?.children ?? []).map((cell) => inline(cell, ctx).trim());
  return rows.map((row, r) => {
    const cells = row.children.map((cell, c) => {
      const value = inline(cell, ctx).trim() || emojiWords(plainText(cell)) || 'empty';
      const header = headers[c];
      return header ? `${header}: ${value}` : value;
    });
    return asSentence(`Row ${r + 1}: ${cells.join('; ')}`);
  });
};

const block = (node: RootContent, ctx: Context): string[] => {
  switch (node.type) {
    case 'heading':
    case 'paragraph':
      return [asSentence(inline(node, ctx))];
    case 'code': {
      const lang = node.lang ? `${node.lang} ` : '';
      return [`A ${lang}code block is skipped.`.replace(/^A ([aeiou])/i, 'An $1')];
    }
    case 'blockquote': {
      const inner = node.children.flatMap((c) => block(c, ctx)).filter(Boolean);
      const alert = inner[0]?.match(ALERT);
      if (alert) {
        const kind = (alert[1] as string).toLowerCase();
        const rest = [(inner[0] as string).slice(alert[0].length), ...inner.slice(1)].filter(
          (t) => t && t !== '.',
        );
        return [`${kind[0]?.toUpperCase()}${kind.slice(1)}:`, ...rest, `End of ${kind}.`];
      }
      return inner.length ? ['Quote:', ...inner, 'End of quote.'] : [];
    }
    case 'list':
      // Each list counts from its own first item (`3.` reads "Third"), a nested one included.
      return node.children.map((item, i) => {
        const text = item.children
          .flatMap((c) => block(c, ctx))
          .filter(Boolean)
          .join(' ');
        const state = item.checked === true ? 'done: ' : item.checked === false ? 'to do: ' : '';
        return asSentence(
          `${ordinal((node.ordered ? (node.start ?? 1) - 1 : 0) + i)}, ${state}${text.replace(/\.$/, '')}`,
        );
      });
    case 'table':
      return tableText(node, ctx);
    case 'html':
      return [asSentence(htmlText(node.value, ctx))];
    case 'footnoteDefinition':
      ctx.footnotes.set(
        node.identifier,
        node.children
          .flatMap((c) => block(c, ctx))
          .filter(Boolean)
          .join(' '),
      );
      return [];
    case 'thematicBreak':
    case 'definition':
    case 'yaml':
      return [];
    default:
      return 'children' in node ? [asSentence(inline(node as Nodes, ctx))] : [];
  }
};

const normalize = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/([([“‘]) /g, '$1')
    // Angle brackets around an address (`&lt;tj@example.com&gt;`) are not read.
    .replace(/<([^<>\s]+(?: at [^<>\s]+)?)>/g, '$1')
    // A space before punctuation goes, but not before a word that starts with it (`.parse`, `...rest`).
    .replace(/\s+([.,;:!?]+)(?=\s|$|["')\]”’])/g, '$1')
    .replace(/([.!?])\.+/g, '$1')
    .trim();

type MarkdownParser = typeof import('./markdown-parser');

/**
 * The markdown parser (`markdown-parser.ts`, about 110 KB) is imported on the first call only, so a cold start
 * of the speech or workflows group does not load it.
 */
let parser: Promise<MarkdownParser> | undefined;
const loadMarkdownParser = (): Promise<MarkdownParser> => {
  parser ??= import('#lazy/markdown-parser');
  return parser;
};

/**
 * The spoken form of a markdown document (no token limit). Markdown beyond the work bounds
 * (`markdown-work.ts`) or the nesting bound is refused with 400 `validation_failed` at `pointer` before the
 * parser runs (nesting that indentation builds across lines is measured on the tree).
 */
export const rewriteMarkdownInProcess = async (markdown: string, pointer: string): Promise<string> => {
  const { parseMarkdown, decodeCharacterReferences } = await loadMarkdownParser();
  // The nesting of each line is checked first (its refusal is the more precise), then the work bounds.
  const parse = (within: string) => {
    checkMarkdownWork(within, pointer);
    return parseMarkdown(within);
  };
  const tree = parseWithinNesting(markdown, parse, pointer);
  const ctx: Context = { footnotes: new Map(), decode: decodeCharacterReferences };
  const sentences = tree.children.flatMap((c) => block(c, ctx)).map(normalize);
  const notes = [...ctx.footnotes.values()].map(normalize).filter(Boolean);
  notes.forEach((note, i) => {
    sentences.push(asSentence(`Footnote ${i + 1}: ${note}`));
  });
  return normalize(sentences.filter((s) => s && s !== '.').join(' '));
};

/** Reads markdown aloud: `rewriteMarkdownInProcess`, or where the runtime registered instead. */
export type MarkdownReader = (markdown: string, pointer: string) => Promise<string>;
let reader: MarkdownReader = rewriteMarkdownInProcess;

/**
 * Registers where markdown is read. A Lambda reads it in-process (one request per Lambda); the local stack,
 * whose one process answers every request, registers a worker thread (`functions/local/markdown-reader.ts`).
 */
export const registerMarkdownReader = (read: MarkdownReader) => {
  reader = read;
};

/** The spoken form of a markdown document (no token limit); refusals point at `pointer`. */
export const rewriteMarkdown = (markdown: string, pointer = '/body/markdown'): Promise<string> =>
  reader(markdown, pointer);

export type TokenCounter = (text: string) => number;

/**
 * The o200k_base encoding is about 2.4 MB of data: it is imported on the first call only, so the speech
 * group's cold start does not load it.
 */
let counter: Promise<TokenCounter> | undefined;
export const loadTokenCounter = (): Promise<TokenCounter> => {
  counter ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => (text: string) => m.countTokens(text));
  return counter;
};

export interface SpokenText {
  text: string;
  tokens: number;
  truncated: boolean;
  parts: string[];
}

/**
 * The longest run of `pieces` joined by spaces that fits `max` tokens. Each piece is counted once, with the
 * space before it (so the work is linear in the text, not in the pieces times their prefix); the sum is then
 * checked by one count of the kept text, and pieces are given back from the end while it is over (a token
 * that joins two pieces is rare, and the kept text is at most about `max` tokens long).
 */
const longestPrefixWithin = (pieces: readonly string[], max: number, count: TokenCounter) => {
  let kept = 0;
  let sum = 0;
  for (const piece of pieces) {
    const n = count(kept ? ` ${piece}` : piece);
    if (sum + n > max) break;
    sum += n;
    kept++;
  }
  let text = pieces.slice(0, kept).join(' ');
  let tokens = count(text);
  while (kept > 0 && tokens > max) {
    kept--;
    text = pieces.slice(0, kept).join(' ');
    tokens = count(text);
  }
  return { text, tokens };
};

/** Keeps the longest run of whole sentences that fits `max` tokens. */
export const cutAtTokens = (text: string, max: number, count: TokenCounter) => {
  const total = count(text);
  if (total <= max) return { text, tokens: total, truncated: false };
  const sentences = splitSentences(text);
  const whole = longestPrefixWithin(sentences, max, count);
  if (whole.text) return { ...whole, truncated: true };
  // A first sentence longer than the limit on its own: keep its words that fit.
  return { ...longestPrefixWithin((sentences[0] ?? '').split(' '), max, count), truncated: true };
};

export const spokenText = async (markdown: string, pointer = '/body/markdown'): Promise<SpokenText> => {
  const [count, spoken] = await Promise.all([loadTokenCounter(), rewriteMarkdown(markdown, pointer)]);
  const cut = cutAtTokens(spoken, SPOKEN_TEXT_MAX_TOKENS, count);
  return { ...cut, parts: splitIntoParts(cut.text, SPEECH_PART_MAX_CHARACTERS) };
};
