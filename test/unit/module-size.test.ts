import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The size rules of the code base (`docs/decisions/0017-job-type-code-and-overhead.md`, the README's layout):
 * a runtime module (everything under `functions/`) stays under 600 lines and a route module under 400: guards
 * against giants, not a rule that splits a concept by length (names follow concepts, decision 0024); a job
 * type's own code (the files named after it, every layer but the local stack's) stays within 800.
 */
const root = resolve(import.meta.dirname, '../..');

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

const linesOf = (file: string) => readFileSync(join(root, file), 'utf8').split('\n').length - 1;

const RUNTIME = sourceFiles('functions');

const over = (files: readonly string[], limit: number) =>
  files.map((file) => ({ file, lines: linesOf(file) })).filter(({ lines }) => lines > limit);

/** A job type's own files: named after it (`transcode…`, `workers/transcode/…`), the local stack's left out. */
const JOB_TYPES: Record<string, { pattern: RegExp; except?: RegExp }> = {
  // The ffmpeg function converts, as MediaConvert (whose adapters are not named after the type) does: an engine,
  // not the job type's lifecycle.
  transcode: { pattern: /(^|\/)transcodes?([-/.]|$)/, except: /\/transcode-audio\// },
  // The transcript format converters are the output's formats, not the job type's lifecycle.
  transcription: { pattern: /(^|\/)transcriptions?([-/.]|$)/, except: /\/transcripts\.ts$/ },
  speech_job: { pattern: /(^|\/)speech-jobs?([-/.]|$)/ },
};

describe('module sizes', () => {
  it('keeps every runtime module within 600 lines', () => {
    expect(RUNTIME.length).toBeGreaterThan(100);
    expect(over(RUNTIME, 600)).toEqual([]);
  });

  it('keeps every route module within 400 lines', () => {
    const routes = RUNTIME.filter((file) => /routes\/[a-z-]+-routes\.ts$/.test(file));
    expect(routes.length).toBeGreaterThan(10);
    expect(over(routes, 400)).toEqual([]);
  });

  it.each(Object.entries(JOB_TYPES))(
    'keeps the %s job type own code within 800 lines',
    (_type, { pattern, except }) => {
      const files = RUNTIME.filter(
        (file) => !file.startsWith('functions/local/') && pattern.test(file) && !except?.test(file),
      );
      expect(files.length).toBeGreaterThan(4);
      const total = files.reduce((sum, file) => sum + linesOf(file), 0);
      expect(total, files.join(', ')).toBeLessThanOrEqual(800);
    },
  );
});
