import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Product code names no local engine: what ffprobe, espeak-ng and pocketsphinx need (their arguments, voices,
 * languages, timing) and where the machine's binaries are (`/usr/bin/...`) live with the local adapters under
 * `functions/local/`, the only code that knows it is not on AWS. ffmpeg is an engine of the product too (the
 * audio-only presets run on it on AWS, decision 0039): its arguments are product code, its local binary is not. Product code asks the registered engine (`functions/shared/domain/engines.ts`). The rule
 * holds for the whole text of a module, comments included: a comment naming a local engine is knowledge of it
 * in the wrong place too.
 */
const root = resolve(import.meta.dirname, '../..');
const PRODUCT = ['functions/shared', 'functions/workers', 'lib'];
const LOCAL_ENGINES = /ffprobe|espeak|pocketsphinx|\/usr\/bin\//i;

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts|js|mjs|json)$/.test(entry.name) ? [path] : [];
  });

/** `file:line: text` of every line of `files` that names a local engine. */
const mentions = (files: readonly string[]) =>
  files.flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (LOCAL_ENGINES.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );

describe('engine-neutral product code', () => {
  it('names no local engine in any module of functions/shared, functions/workers or lib', () => {
    const files = PRODUCT.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(200);
    expect(mentions(files)).toEqual([]);
  });

  it('finds a local engine named anywhere in a line, comments included', () => {
    expect(LOCAL_ENGINES.test("const X = ['-i', file]; // run by FFprobe")).toBe(true);
    expect(LOCAL_ENGINES.test("const FFMPEG = '/usr/bin/ffmpeg';")).toBe(true);
    expect(LOCAL_ENGINES.test("const FFMPEG = '/opt/bin/ffmpeg';")).toBe(false);
    expect(LOCAL_ENGINES.test(" * espeak-ng's voice")).toBe(true);
    expect(LOCAL_ENGINES.test('pocketsphinx_continuous')).toBe(true);
    expect(LOCAL_ENGINES.test('MediaConvert and Amazon Transcribe')).toBe(false);
  });
});
