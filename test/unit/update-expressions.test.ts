import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One way to write an update (`functions/shared/data/update-expression.ts`): no other runtime module writes an
 * update expression of its own, so every update is checked against the fields of the item it writes.
 */
const root = resolve(import.meta.dirname, '../..');
const BUILDER = 'functions/shared/data/update-expression.ts';

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

describe('update expressions', () => {
  it('are written by the builder only', () => {
    const files = sourceFiles('functions');
    expect(files).toContain(BUILDER);
    const writers = files.filter(
      (file) => file !== BUILDER && /UpdateExpression\s*:/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(writers).toEqual([]);
  });
});
