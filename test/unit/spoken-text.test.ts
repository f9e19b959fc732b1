import { describe, expect, it } from 'vitest';
import { splitIntoParts, splitSentences } from '../../functions/shared/domain/sentences';
import { MARKDOWN_MAX_NESTING } from '../../functions/shared/domain/speech-request';
import {
  loadTokenCounter,
  rewriteMarkdown,
  SPOKEN_TEXT_MAX_TOKENS,
  spokenText,
} from '../../functions/shared/domain/spoken-text';
import type { AppError } from '../../functions/shared/errors';

/** Markdown → expected spoken text, one case per rule (docs/speech.md documents the same rules). */
const CORPUS: [string, string, string][] = [
  ['heading', '# Release notes', 'Release notes.'],
  ['heading with punctuation', '## Ready?', 'Ready?'],
  ['heading then paragraph', '# Title\n\nBody text', 'Title. Body text.'],
  ['strong and emphasis', 'Some **bold** and _italic_ words.', 'Some bold and italic words.'],
  ['strikethrough', 'It was ~~old~~ new.', 'It was old new.'],
  ['inline code', 'Run `npm test` now.', 'Run npm test now.'],
  ['link reads as its text', 'Read [the guide](https://example.com/guide).', 'Read the guide.'],
  ['bare URL reads as its host', 'See https://www.example.com/a/b?c=1 today.', 'See example.com today.'],
  ['autolink reads as its host', 'Visit <https://docs.example.org/x>.', 'Visit docs.example.org.'],
  ['email autolink', 'Write to <mailto:team@example.com>.', 'Write to team at example.com.'],
  ['image reads as alt text', '![A red bicycle](bike.png)', 'A red bicycle.'],
  ['image without alt is silent', 'Before ![](x.png) after.', 'Before after.'],
  ['unordered list', '- apples\n- pears\n- plums', 'First, apples. Second, pears. Third, plums.'],
  ['ordered list', '1. Open\n2. Close', 'First, Open. Second, Close.'],
  ['list beyond ten', Array.from({ length: 11 }, (_, i) => `- i${i + 1}`).join('\n'), ''],
  ['task list', '- [x] ship\n- [ ] test', 'First, done: ship. Second, to do: test.'],
  [
    'table row by row with headers',
    '| Name | Age |\n|---|---|\n| Ann | 30 |\n| Bob | 41 |',
    'Row 1: Name: Ann; Age: 30. Row 2: Name: Bob; Age: 41.',
  ],
  ['table empty cell', '| A | B |\n|---|---|\n| 1 |  |', 'Row 1: A: 1; B: empty.'],
  ['fenced code block skipped', 'Intro.\n\n```js\nx()\n```', 'Intro. A js code block is skipped.'],
  ['code block without language', '```\nx\n```', 'A code block is skipped.'],
  ['indented code block', 'Text.\n\n    code here', 'Text. A code block is skipped.'],
  ['block quote', '> Be kind.', 'Quote: Be kind. End of quote.'],
  [
    'footnotes read at the end',
    'Claim[^1] here.\n\n[^1]: Source text.',
    'Claim here. Footnote 1: Source text.',
  ],
  ['inline HTML stripped', 'Text with <b>bold</b> tags.', 'Text with bold tags.'],
  ['block HTML stripped', '<div>\nHello <em>there</em>\n</div>', 'Hello there.'],
  ['ampersand', 'Salt & pepper', 'Salt and pepper.'],
  ['percent', '20% off', '20 percent off.'],
  ['e.g. and i.e.', 'Fruit, e.g. apples, i.e. food.', 'Fruit, for example apples, that is food.'],
  ['arrow', 'Paris → Rome', 'Paris to Rome.'],
  ['degrees Celsius', 'It is 30°C.', 'It is 30 degrees Celsius.'],
  ['dollars', 'It costs $5 or $1.', 'It costs 5 dollars or 1 dollar.'],
  ['euros and pounds', '€20 and £3.50', '20 euros and 3 pounds and 50 pence.'],
  ['emoji dropped', 'Launch 🚀 done 👍🏽!', 'Launch done!'],
  ['thematic break silent', 'One.\n\n---\n\nTwo.', 'One. Two.'],
  ['hard break', 'Line one  \nline two', 'Line one line two.'],
  ['etc.', 'Apples, pears, etc.', 'Apples, pears, et cetera.'],
  [
    'HTML character references decoded',
    '<p>Tom &amp; Jerry&nbsp;&#169; 2024 &#x2014; ok</p>',
    'Tom and Jerry copyright 2024 — ok.',
  ],
  ['markdown character references', 'Tom &amp; Jerry&nbsp;rock &#33;', 'Tom and Jerry rock!'],
  ['unknown reference kept', '<div>a &bogus; b</div>', 'a and bogus; b.'],
  [
    'emoji-only table cells',
    '| Feature | Ok |\n|---|---|\n| a | ✅ |\n| b | ❌ |\n| c | 🦄 |',
    'Row 1: Feature: a; Ok: yes. Row 2: Feature: b; Ok: no. Row 3: Feature: c; Ok: symbol.',
  ],
  ['space before inline code kept', 'use `.parse` to parse', 'use .parse to parse.'],
  ['punctuation code by name', 'use `:` to separate', 'use colon to separate.'],
  [
    'nested lists count per level',
    '1. one\n   1. a\n   2. b\n2. two\n   - c\n3. three',
    'First, one. First, a. Second, b. Second, two. First, c. Third, three.',
  ],
  ['ordered list from its start', '3. three\n4. four', 'Third, three. Fourth, four.'],
  ['etc. before a new sentence', 'Apples, pears, etc. Then more.', 'Apples, pears, et cetera. Then more.'],
  ['etc. mid-sentence', 'Apples etc. are fruit.', 'Apples et cetera are fruit.'],
  [
    'abbreviations before punctuation',
    'Fruit (e.g. apples), things (etc.), e.g.: this; i.e.',
    'Fruit (for example apples), things (et cetera), for example: this; that is.',
  ],
  [
    'abbreviation ends a list item',
    '- apples etc.\n- pears e.g.',
    'First, apples et cetera. Second, pears for example.',
  ],
  ['abbreviation ends a table cell', '| A |\n|---|\n| etc. |', 'Row 1: A: et cetera.'],
  ['GitHub alert', '> [!WARNING]\n> Mind the gap.', 'Warning: Mind the gap. End of warning.'],
  ['comparisons', 'Node >= 20 || < 18', 'Node at least 20 or below 18.'],
  ['address in angle brackets', 'TJ &lt;tj@example.com&gt;', 'TJ tj at example.com.'],
];

describe('rewriteMarkdown (markdown → spoken text)', () => {
  it.each(CORPUS.filter(([, , expected]) => expected))('%s', async (_rule, markdown, expected) => {
    expect(await rewriteMarkdown(markdown)).toBe(expected);
  });

  it('reads items beyond the tenth with their number', async () => {
    const text = await rewriteMarkdown(CORPUS.find(([rule]) => rule === 'list beyond ten')?.[1] ?? '');
    expect(text).toContain('Tenth, i10.');
    expect(text).toContain('Number 11, i11.');
  });

  it('is deterministic', async () => {
    const md = CORPUS.map(([, m]) => m).join('\n\n');
    expect(await rewriteMarkdown(md)).toBe(await rewriteMarkdown(md));
  });
});

describe('markdown nesting', () => {
  const refusal = (markdown: string) =>
    rewriteMarkdown(markdown).then(
      () => undefined,
      (error: AppError) => ({ code: error.code, detail: error.message, errors: error.errors }),
    );
  const refused = {
    code: 'validation_failed',
    detail: expect.stringContaining(`at most ${MARKDOWN_MAX_NESTING} deep`),
    errors: [{ pointer: '/body/markdown', message: expect.any(String) }],
  };

  it('reads block quotes nested up to the limit', async () => {
    const text = await rewriteMarkdown(`${'>'.repeat(MARKDOWN_MAX_NESTING)} deep`);
    expect(text.startsWith('Quote: Quote:')).toBe(true);
    expect(text).toContain('deep.');
  });

  it.each([
    ['one past the limit of block quotes', `${'>'.repeat(MARKDOWN_MAX_NESTING + 1)} x`],
    ['2,000 block quotes', `${'>'.repeat(2000)} x`],
    ['7,999 block quotes (the parser alone would overflow)', `${'>'.repeat(7999)}`],
    ['block quotes of lists', `${'> - '.repeat(1999)}x`],
    ['bullets on one line', `${'- '.repeat(2000)}x`],
    ['numbered lists on one line', `${'1. '.repeat(2666)}x`],
    ['lists nested by indentation', Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i)}- a`).join('\n')],
    ['strong emphasis', `${'**'.repeat(1000)}x${'**'.repeat(1000)}`],
  ])('refuses %s with validation_failed at /body/markdown', async (_case, markdown) => {
    expect(await refusal(markdown)).toEqual(refused);
  });
});

describe('splitSentences', () => {
  it('does not end a sentence at abbreviations, initials or decimals', () => {
    expect(splitSentences('Dr. Smith paid 3.14 dollars. J. Doe agreed, e.g. yes! Why? Done')).toEqual([
      'Dr. Smith paid 3.14 dollars.',
      'J. Doe agreed, e.g. yes!',
      'Why?',
      'Done',
    ]);
  });

  it('keeps closing quotes with their sentence', () => {
    expect(splitSentences('He said "stop." Then left.')).toEqual(['He said "stop."', 'Then left.']);
  });

  it('parts never exceed the limit, split at sentences then words, and join back to the text', () => {
    const text = `${'Short one. '.repeat(50)}${'word '.repeat(300)}end.`.trim();
    const parts = splitIntoParts(text, 200);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(200);
    expect(parts.join(' ')).toBe(text.replace(/\s+/g, ' '));
    expect(parts[0]?.endsWith('.')).toBe(true);
  });

  it('never cuts a character in two: a word of astral characters splits between code points', () => {
    const emoji = '😀'.repeat(2049);
    const parts = splitIntoParts(emoji, 3000);
    expect(parts.map((p) => p.length)).toEqual([3000, 1098]);
    expect(parts.join('')).toBe(emoji);
    for (const part of parts) expect(part).not.toMatch(/[\ud800-\udbff]$|^[\udc00-\udfff]/);
  });
});

describe('spokenText (tokens, truncation, parts)', () => {
  it('counts o200k_base tokens and answers one part for a short text', async () => {
    const result = await spokenText('# Hello\n\nWorld');
    expect(result).toEqual({ text: 'Hello. World.', tokens: 4, truncated: false, parts: ['Hello. World.'] });
  });

  it('cuts a long document at exactly the token limit, at a sentence boundary', async () => {
    const sentences = Array.from({ length: 400 }, (_, i) => `Sentence number ${i + 1} is here.`);
    const result = await spokenText(sentences.join(' '));
    const count = await loadTokenCounter();
    expect(result.truncated).toBe(true);
    expect(result.tokens).toBe(count(result.text));
    expect(result.tokens).toBeLessThanOrEqual(SPOKEN_TEXT_MAX_TOKENS);
    // One more sentence would exceed the limit.
    const kept = splitSentences(result.text).length;
    expect(count(`${result.text} ${sentences[kept]}`)).toBeGreaterThan(SPOKEN_TEXT_MAX_TOKENS);
    expect(result.text.endsWith('is here.')).toBe(true);
    for (const part of result.parts) expect(part.length).toBeLessThanOrEqual(4096);
    expect(result.parts.join(' ')).toBe(result.text);
    expect(result.parts.length).toBeGreaterThan(1);
  });

  it('keeps the words that fit when a single sentence is longer than the limit', async () => {
    const result = await spokenText(`${'word '.repeat(3000).trim()}.`);
    expect(result.truncated).toBe(true);
    expect(result.tokens).toBeLessThanOrEqual(SPOKEN_TEXT_MAX_TOKENS);
    expect(result.tokens).toBeGreaterThan(SPOKEN_TEXT_MAX_TOKENS - 3);
  });
});
