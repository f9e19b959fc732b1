import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../functions/shared/domain/sentences';
import { rewriteMarkdown } from '../../functions/shared/domain/spoken-text';

/**
 * Real markdown (READMEs and a changelog of dependencies, kept as they were published) against its spoken form,
 * read and approved by a person: `<name>.md` → `<name>.spoken.txt`, one sentence a line. A change of the rules
 * shows here as a diff to read; `UPDATE_GOLDEN=1` rewrites the expected files after that reading.
 */
const DIR = join(import.meta.dirname, '../fixtures/spoken-text');
const documents = readdirSync(DIR)
  .filter((f) => f.endsWith('.md'))
  .sort();

describe('spoken text of real documents (golden files)', () => {
  it('has documents to read', () => {
    expect(documents.length).toBeGreaterThanOrEqual(3);
  });

  it.each(documents)('%s reads as its approved spoken form', async (name) => {
    const text = await rewriteMarkdown(readFileSync(join(DIR, name), 'utf8'));
    const lines = `${splitSentences(text).join('\n')}\n`;
    // One sentence a line loses nothing: the text is those sentences joined by single spaces.
    expect(splitSentences(text).join(' ')).toBe(text);
    const golden = join(DIR, name.replace(/\.md$/, '.spoken.txt'));
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, lines);
    expect(lines).toBe(readFileSync(golden, 'utf8'));
  });
});
