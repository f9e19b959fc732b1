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
 * The count is conservative: where the pass cannot tell cheaply that the parser starts a new paragraph (a
 * paragraph's text continued on the next line, an ordered item inside the previous one's text, a table row
 * without a blank line before its table, a line inside a code block), it counts on in the same one.
 */
export const MARKDOWN_WORK_BOUNDS = {
  /** Runs of `*`, `_` or `~` in one paragraph (a run is one or more of the same mark). */
  delimiterRunsPerParagraph: 500,
  /** `[` and `]` in one paragraph. */
  bracketsPerParagraph: 500,
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
/** An ordered item with its text; group 1 is its indentation. */
const ORDERED_ITEM = /^( {0,3})\d{1,9}[.)][ \t]+\S/;
/** A table's delimiter row: cells of dashes with optional colons, separated by `|`. */
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

/** The cells of a table row: split at `|` not escaped, without the empty ends of a leading or trailing `|`. */
const cellCount = (row: string) => {
  const cells = row.trim().split(/(?<!\\)\|/);
  if (cells[0]?.trim() === '') cells.shift();
  if (cells.length > 0 && cells[cells.length - 1]?.trim() === '') cells.pop();
  return cells.length;
};

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
  let previousRest = '';
  /** The indentation of the ordered item the previous line started, if it started one. */
  let previousOrderedIndent: number | undefined;
  /** Whether the previous line began a paragraph (after a blank line), and the quote depth of a table in rows. */
  let paragraphStart = false;
  let tableDepth: number | undefined;
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
    const ordered = ORDERED_ITEM.exec(rest);
    const orderedIndent = ordered ? (ordered[1] as string).length : undefined;
    // An ordered item right after an ordered item line, at its indentation or less, is the next item (not the
    // previous item's text, which is the parser's paragraph only when indented into that item).
    const nextOrderedItem =
      orderedIndent !== undefined &&
      previousOrderedIndent !== undefined &&
      depth === previousDepth &&
      orderedIndent <= previousOrderedIndent;
    // A table: a header row with a `|` that began a paragraph, then a delimiter row of as many cells. Each row's cells are
    // paragraphs of their own, while the rows hold a `|` at the table's quote depth.
    if (tableDepth !== undefined && (depth !== tableDepth || blank || !rest.includes('|')))
      tableDepth = undefined;
    const tableRow = tableDepth !== undefined;
    if (
      tableDepth === undefined &&
      paragraphStart &&
      depth === previousDepth &&
      rest.includes('|') &&
      previousRest.includes('|') &&
      TABLE_DELIMITER.test(rest) &&
      cellCount(rest) === cellCount(previousRest)
    )
      tableDepth = depth;
    if (blank || PARAGRAPH_ITEM.test(rest) || ATX_HEADING.test(rest) || nextOrderedItem || tableRow) {
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
    if (quotesOpened > bounds.quotesOpened) return `opens more than ${fmt(bounds.quotesOpened)} block quotes`;
    paragraphStart = previousBlank && !blank;
    previousDepth = depth;
    previousBlank = blank;
    previousRest = rest;
    previousOrderedIndent = orderedIndent;
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
