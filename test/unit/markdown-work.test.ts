import { describe, expect, it } from 'vitest';
import { MARKDOWN_WORK_BOUNDS, markdownWorkProblem } from '../../functions/shared/domain/markdown-work';
import { spokenTextOf } from '../../functions/shared/domain/speech-job-requests';
import { rewriteMarkdown, spokenText } from '../../functions/shared/domain/spoken-text';
import type { AppError } from '../../functions/shared/errors';

const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

const refusal = (read: Promise<unknown>) =>
  read.then(
    () => undefined,
    (error: AppError) => ({ code: error.code, detail: error.message, errors: error.errors }),
  );

/** 100,000 characters of the shapes the parser handles in more than linear time. */
const ADVERSARIAL: [string, string, string][] = [
  ['emphasis runs *a**', repeatTo('*a**', 100_000), 'runs of emphasis'],
  ['emphasis runs a_a__', repeatTo('a_a__ ', 100_000), 'runs of emphasis'],
  ['strikethrough runs a~~a~', repeatTo('a~~a~ ', 100_000), 'runs of emphasis or strikethrough'],
  ['emphasis runs on lines of their own', repeatTo('*a**\n', 100_000), 'runs of emphasis'],
  ['opening brackets', repeatTo('[', 100_000), 'brackets'],
  ['closing brackets a]', repeatTo('a]', 100_000), 'brackets'],
  ['footnote calls', repeatTo('[^a]', 100_000), 'brackets'],
  ['list items', repeatTo('- a\n', 100_000), 'list items'],
  ['numbered list items', repeatTo('1. a\n', 100_000), 'list items'],
  ['table rows', `| a | b |\n|---|---|\n${repeatTo('| x | y |\n', 99_980)}`, 'table rows'],
  ['setext headings', repeatTo('a\n=\n', 100_000), 'setext'],
  ['lazy block quote lines', repeatTo('> a\nb\n', 100_000), 'block quote'],
  ['block quotes at the depth limit', repeatTo(`${'> '.repeat(50)}a\n\n`, 100_000), 'block quotes'],
];

/** An ordinary long document: headings, paragraphs, emphasis, links, long lists and a long table. */
const legitimateDocument = () => {
  const sections = Array.from(
    { length: 60 },
    (_, i) =>
      `## Section ${i + 1}\n\nThe *quick* brown fox jumps over the **lazy** dog; read [the guide](https://example.com/${i}) ` +
      'before you start, and keep `npm test` green. ~~Old advice~~ is struck through.\n\n' +
      '> A quoted remark with *emphasis*.\n\n',
  );
  const bullets = Array.from(
    { length: 300 },
    (_, i) => `- **Item ${i}**: see [page ${i}](https://example.com/p/${i})`,
  );
  const numbered = Array.from(
    { length: 300 },
    (_, i) => `${i + 1}. _Step_ [${i}](https://example.com/s/${i})`,
  );
  const table = [
    '| Name | Value | Link |',
    '|---|:---:|---|',
    ...Array.from(
      { length: 300 },
      (_, i) => `| **row ${i}** | *${i}* | [r${i}](https://example.com/r/${i}) |`,
    ),
  ];
  return [...sections, bullets.join('\n'), numbered.join('\n'), table.join('\n')].join('\n\n');
};

describe('markdown work bounds', () => {
  it.each(ADVERSARIAL)(
    'refuses 100,000 characters of %s with validation_failed at /body/markdown',
    async (_family, markdown, words) => {
      const refused = await refusal(rewriteMarkdown(markdown));
      expect(refused).toEqual({
        code: 'validation_failed',
        detail: expect.stringContaining('beyond what is read aloud'),
        errors: [{ pointer: '/body/markdown', message: expect.stringContaining(words) }],
      });
    },
  );

  // Untimed: the timeout only leaves room for a loaded machine.
  it('reads an ordinary long document with long lists, a long table and many links', {
    timeout: 60_000,
  }, async () => {
    const markdown = legitimateDocument();
    expect(markdown.length).toBeGreaterThan(40_000);
    expect(markdownWorkProblem(markdown)).toBeUndefined();
    const text = await rewriteMarkdown(markdown);
    expect(text).toContain('Section 60.');
    expect(text).toContain('Number 300, Item 299: see page 299.');
    expect(text).toContain('Row 300: Name: row 299; Value: 299; Link: r299.');
  });

  it('reads each shape up to its bound and refuses it one past', () => {
    const b = MARKDOWN_WORK_BOUNDS;
    const cases: [number, (n: number) => string][] = [
      [b.delimiterRunsPerParagraph, (n) => 'a*'.repeat(n)],
      [b.bracketsPerParagraph, (n) => 'a]'.repeat(n)],
      [b.listItems, (n) => '- a\n'.repeat(n)],
      [b.tableLines, (n) => `| a |\n|---|\n${'| x |\n'.repeat(n - 2)}`],
      [b.setextUnderlines, (n) => 'a\n---\n\n'.repeat(n)],
      [b.lazyLines, (n) => '> a\nb\n\n'.repeat(n)],
      [b.quotesOpened, (n) => '> a\n\n'.repeat(n)],
    ];
    for (const [bound, build] of cases) {
      expect(markdownWorkProblem(build(bound))).toBeUndefined();
      expect(markdownWorkProblem(build(bound + 1))).toEqual(expect.any(String));
    }
  });

  it('counts the marks of blank-line paragraphs, bullet items, headings and table rows apart', () => {
    const full = 'a*'.repeat(MARKDOWN_WORK_BOUNDS.delimiterRunsPerParagraph);
    expect(markdownWorkProblem(`${full}\n\n${full}`)).toBeUndefined();
    expect(markdownWorkProblem(`${full}\n- ${full}`)).toBeUndefined();
    expect(markdownWorkProblem(`${full}\n# ${full}`)).toBeUndefined();
    expect(markdownWorkProblem(`1. ${full}\n2. ${full}`)).toBeUndefined();
    expect(markdownWorkProblem(`| a |\n|---|\n| ${full} |\n| ${full} |`)).toBeUndefined();
  });

  it('counts on where the parser continues the paragraph', () => {
    const full = 'a*'.repeat(MARKDOWN_WORK_BOUNDS.delimiterRunsPerParagraph);
    // A second line of text, an item numbered 2 under text (it cannot interrupt a paragraph), an item indented
    // into the previous one's text, and rows under a header without a `|` continue the same paragraph.
    expect(markdownWorkProblem(`${full}\n${full}`)).toEqual(expect.any(String));
    expect(markdownWorkProblem(`${full}\n2. ${full}`)).toEqual(expect.any(String));
    expect(markdownWorkProblem(`1. ${full}\n   2. ${full}`)).toEqual(expect.any(String));
    expect(markdownWorkProblem(`a\n|---|\n| ${full} |\n| ${full} |`)).toEqual(expect.any(String));
    expect(markdownWorkProblem(`| a | b |\n|---|\n| ${full} |\n| ${full} |`)).toEqual(expect.any(String));
  });

  it('points a refusal at the field of each door', async () => {
    const markdown = repeatTo('*a**', 20_000);
    const pointerOf = async (read: Promise<unknown>) => (await refusal(read))?.errors?.[0]?.pointer;
    expect(await pointerOf(spokenText(markdown))).toBe('/body/markdown');
    expect(await pointerOf(spokenTextOf({ markdown }))).toBe('/body/markdown');
    // The workflow actions point into the step's input.
    expect(await pointerOf(spokenText(markdown, '/markdown'))).toBe('/markdown');
    expect(await pointerOf(spokenTextOf({ markdown }, ''))).toBe('/markdown');
  });

  it('strips raw HTML as the patterns did, in one pass', async () => {
    // The patterns the rewrite used before (each rescans to the end from every unclosed opening).
    const patterns = (html: string) =>
      html
        .replace(/<!--[\s\S]*?-->/g, ' ')
        .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
    for (const html of [
      '<div>\n<!-- open <b>bold</b>\n</div>',
      '<div>\n<p>a <b>bold</b> <!-- note --> c</p>\n</div>',
      '<div>\n<SCRIPT>x</script>kept <style> lost?\n</div>',
      '<div>\n<script>one</script> two <script>three</SCRIPT> four <!-- x --> <!-- y\n</div>',
    ]) {
      const text = patterns(html);
      expect(await rewriteMarkdown(html)).toBe(/[.!?]$/.test(text) ? text : `${text}.`);
    }
    expect(await rewriteMarkdown(`<div>\n${'<'.repeat(50_000)}\n</div>`)).toBe(
      `${'<'.repeat(50_000)}`.replace(/</g, ''),
    );
  });
});
