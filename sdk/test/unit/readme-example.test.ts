import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The quick starts of the READMEs are `examples/quick-start.ts`, the program the integration tests run
 * against the local stack (`test/integration/examples.test.ts`): the code a reader copies is code that runs.
 */
const sdk = join(import.meta.dirname, '..', '..');
const read = (...path: string[]) => readFileSync(join(...path), 'utf8');

/** The first `ts` code block after the heading `heading`. */
const codeAfter = (markdown: string, heading: string): string | undefined => {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at < 0) return undefined;
  return /```ts\n([\s\S]*?)```/.exec(markdown.slice(at))?.[1];
};

describe('the README quick starts', () => {
  const example = read(sdk, 'examples', 'quick-start.ts');

  it.each([
    ['sdk/README.md', read(sdk, 'README.md'), '## Quick start'],
    ['README.md', read(sdk, '..', 'README.md'), '## TypeScript SDK'],
  ])('%s shows examples/quick-start.ts as it is', (_file, markdown, heading) => {
    expect(codeAfter(markdown, heading)).toBe(example);
  });
});
