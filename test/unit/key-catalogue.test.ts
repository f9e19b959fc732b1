import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexPartitions, partitions, sortKeys } from '../../functions/shared/data/keys';

/**
 * The key catalogue (`functions/shared/data/keys.ts`) is the only place that spells a key of the table:
 * runtime code, the CDK code and the entry points build keys through it, so a key cannot drift between a
 * writer, a reader and the IAM grants. This test reads the code with its comments removed and fails on any
 * key-prefix literal outside the catalogue.
 */
const root = resolve(import.meta.dirname, '../..');
const CATALOGUE = 'functions/shared/data/keys.ts';

const KEY_PREFIX_LITERALS: readonly RegExp[] = [
  /CO#/,
  /#(USAGE|CRED|IDEM|DD|DDTYPE|LOG|CHANNEL|OBJ|TRANSCODE|TRANSCRIPTION|WF|WFRUN|EVENT|WEBHOOK|APIKEYS|IX)\b/,
  /\bAPIKEY\b/,
  /['"`](M|EV|DL|Q|EP|WF|WFV|JOB|REUSE|TOKEN|REVOKED|ONCE)#/,
  /\b(TRANSCODE|TRANSCRIPTION|WFRUN)#UNFINISHED\b/,
  /\bMESSAGE#UNDELIVERED\b/,
  /['"`](PLAN|PROFILE|TOTALS|EV\$)['"`]/,
];

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|cjs|js)$/.test(entry.name) ? [path] : [];
  });

/** The code of a module without its comments (block comments, then line comments not inside a URL). */
const codeOf = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

const strayLiterals = (files: readonly string[]): string[] =>
  files.flatMap((file) =>
    codeOf(readFileSync(join(root, file), 'utf8'))
      .split('\n')
      .flatMap((line, index) =>
        KEY_PREFIX_LITERALS.some((pattern) => pattern.test(line))
          ? [`${file}:${index + 1}: ${line.trim()}`]
          : [],
      ),
  );

describe('the key catalogue', () => {
  it('is the only module of functions/, lib/ and bin/ that spells a key prefix', () => {
    const files = ['functions', 'lib', 'bin']
      .flatMap(sourceFiles)
      .map((file) => relative(root, join(root, file)))
      .filter((file) => file !== CATALOGUE);
    expect(files.length).toBeGreaterThan(100);
    expect(strayLiterals(files)).toEqual([]);
  });

  it('finds the prefixes it looks for, so the check cannot pass by matching nothing', () => {
    const catalogue = codeOf(readFileSync(join(root, CATALOGUE), 'utf8'));
    for (const key of [
      partitions.company('co_1'),
      partitions.usage('co_1'),
      partitions.apiKeys('h'),
      partitions.dynadataItems('co_1', 'contacts'),
      indexPartitions.unfinishedTranscodes(),
      sortKeys.usageMonth('2026-11'),
      sortKeys.event('e'),
      `'${partitions.plans()}'`,
    ]) {
      expect(
        KEY_PREFIX_LITERALS.some((pattern) => pattern.test(`\`${key}\``)),
        key,
      ).toBe(true);
    }
    expect(strayLiterals([CATALOGUE]).length).toBeGreaterThan(20);
    expect(catalogue).toContain("'CO#'");
  });

  it('lets no data module cast a stored item through unknown or never (items decode through schemas)', () => {
    const casts = sourceFiles('functions/shared/data').flatMap((file) =>
      codeOf(readFileSync(join(root, file), 'utf8'))
        .split('\n')
        .flatMap((line, index) => (/\bas (unknown as|never\b)/.test(line) ? [`${file}:${index + 1}`] : [])),
    );
    expect(casts).toEqual([]);
  });

  it('keeps every key byte-identical to the keys stored before it existed', () => {
    expect(partitions.company('co_1')).toBe('CO#co_1');
    expect(partitions.usage('co_1')).toBe('CO#co_1#USAGE');
    expect(partitions.dynadataItems('co_1', 'contacts')).toBe('CO#co_1#DD#contacts');
    expect(indexPartitions.dynadataIndex('co_1', 'contacts')).toBe('CO#co_1#DD#contacts#IX');
    expect(partitions.storedObjects('co_1', 'companies/co_1/a.txt')).toBe('CO#co_1#OBJ#companies/co_1/a.txt');
    expect(sortKeys.usageMonth('2026-11')).toBe('M#2026-11');
    expect(sortKeys.logEntry(42, 'r')).toBe('000000000000042#r');
    expect(sortKeys.workflowVersion('wf_1', 7)).toBe('WFV#wf_1#000007');
    expect(sortKeys.delivery('evt_1', 'we_1')).toBe('DL#evt_1#we_1');
    expect(sortKeys.afterEvents).toBe('EV$');
    expect(sortKeys.typeCounter('orders')).toBe('TYPECOUNT#orders');
  });

  it('sorts every type counter before every type record (type names are lower case): one key range', () => {
    const names = ['a', 'contacts', 'messages', 'z_9'];
    const sorted = [...names.map((n) => sortKeys.typeCounter(n)), ...names].sort();
    expect(sorted.slice(0, names.length).every((sk) => sk.startsWith(sortKeys.typeCounter('')))).toBe(true);
  });
});
