import { ValidationError } from '../errors';

/**
 * Bounds on the work of reading markdown aloud (docs/decisions/0019-markdown-work-bounds.md). The parser
 * (micromark + GFM) does more than linear work for some shapes: each emphasis or strikethrough run and each
 * `]` scans back over its paragraph; each list item, setext underline, lazy continuation line and block quote
 * opened is spliced into, or walked over, the events of the whole document. One linear pass over the lines
 * counts those shapes before anything is parsed, and markdown beyond a bound is refused with 400
 * `validation_failed`. The bounds sit far above what documents written for people hold, so the parse stays
 * within a small multiple of the cost of ordinary prose of the same length.
 *
 * The count is conservative: where the pass cannot tell cheaply that the parser starts a new paragraph (an
 * ordered item numbered other than 1, a table row, a line inside a code block), it counts on in the same one.
 */
export const MARKDOWN_WORK_BOUNDS = {
  /** Runs of `*`, `_` or `~` in one paragraph (a run is one or more of the same mark). */
  delimiterRunsPerParagraph: 1_000,
  /** `[` and `]` in one paragraph. */
  bracketsPerParagraph: 1_000,
  /** List items in the document. */
  listItems: 2_000,
  /** Lines holding a `|` (table rows) in the document. */
  tableLines: 2_000,
  /** Lines of only `=` or only `-` under a line of text (setext heading underlines) in the document. */
  setextUnderlines: 100,
  /** Lines with fewer `>` than the line of text above them (lazy continuation lines) in the document. */
  lazyLines: 100,
  /** Block quotes opened (a `>` deeper than the line above) in the document. */
  quotesOpened: 1_000,
} as const;

/** Block quote markers at the start of a line: `>` after at most three spaces. */
const QUOTE_MARKER = / {0,3}>[ \t]?/y;
const BLANK = /^[ \t]*$/;
/** A list item that can start a paragraph of its own: a bullet, or the number 1, followed by its text. */
const PARAGRAPH_ITEM = /^ {0,3}(?:[-+*]|0*1[.)])[ \t]+\S/;
const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;

const fmt = (n: number) => n.toLocaleString('en-US');

/** What the markdown holds beyond a bound, as the message of the refusal; undefined within every bound. */
export const markdownWorkProblem = (markdown: string): string | undefined => {
  const bounds = MARKDOWN_WORK_BOUNDS;
  let runs = 0;
  let brackets = 0;
  let listItems = 0;
  let tableLines = 0;
  let setextUnderlines = 0;
  let lazyLines = 0;
  let quotesOpened = 0;
  let previousDepth = 0;
  let previousBlank = true;
  for (const line of markdown.split('\n')) {
    let depth = 0;
    QUOTE_MARKER.lastIndex = 0;
    let end = 0;
    while (QUOTE_MARKER.test(line)) {
      depth++;
      end = QUOTE_MARKER.lastIndex;
    }
    const rest = end === 0 ? line : line.slice(end);
    const blank = BLANK.test(rest);
    if (depth > previousDepth) quotesOpened += depth - previousDepth;
    if (!blank && !previousBlank && depth < previousDepth) lazyLines++;
    if (!previousBlank && SETEXT_UNDERLINE.test(rest)) setextUnderlines++;
    if (LIST_ITEM.test(rest)) listItems++;
    if (blank || PARAGRAPH_ITEM.test(rest) || ATX_HEADING.test(rest)) {
      runs = 0;
      brackets = 0;
    }
    let previous = '';
    let pipe = false;
    for (const c of rest) {
      if ((c === '*' || c === '_' || c === '~') && c !== previous) runs++;
      else if (c === '[' || c === ']') brackets++;
      else if (c === '|') pipe = true;
      previous = c;
    }
    if (pipe) tableLines++;
    if (runs > bounds.delimiterRunsPerParagraph)
      return `has more than ${fmt(bounds.delimiterRunsPerParagraph)} runs of emphasis or strikethrough marks (*, _, ~) in one paragraph`;
    if (brackets > bounds.bracketsPerParagraph)
      return `has more than ${fmt(bounds.bracketsPerParagraph)} brackets ([, ]) in one paragraph`;
    if (listItems > bounds.listItems) return `has more than ${fmt(bounds.listItems)} list items`;
    if (tableLines > bounds.tableLines) return `has more than ${fmt(bounds.tableLines)} table rows`;
    if (setextUnderlines > bounds.setextUnderlines)
      return `has more than ${fmt(bounds.setextUnderlines)} lines of only = or - under a line of text (setext headings)`;
    if (lazyLines > bounds.lazyLines)
      return `has more than ${fmt(bounds.lazyLines)} lines continuing a block quote's paragraph without its >`;
    if (quotesOpened > bounds.quotesOpened)
      return `opens more than ${fmt(bounds.quotesOpened)} block quotes`;
    previousDepth = depth;
    previousBlank = blank;
  }
  return undefined;
};

/** Refuses markdown beyond a bound of `MARKDOWN_WORK_BOUNDS` with 400 `validation_failed` at `pointer`. */
export const checkMarkdownWork = (markdown: string, pointer: string): void => {
  const problem = markdownWorkProblem(markdown);
  if (problem === undefined) return;
  throw new ValidationError(
    [{ pointer, message: problem }],
    `The markdown is beyond what is read aloud: it ${problem} (see docs/speech.md, "Limits").`,
  );
};
