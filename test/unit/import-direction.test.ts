import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The direction of imports (`.dependency-cruiser.cjs`): entries → http/routes → domain → data/aws, with
 * shared types importing nothing of ours and the handler pipeline imported by entries and the HTTP chain
 * only. dependency-cruiser reads the real import graph (swc parser).
 */
const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const config = join(root, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

const cruise = async (cwd: string): Promise<{ violations: Violation[]; modules: number }> => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [cli, 'functions', '--config', config, '--output-type', 'json'],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const result = JSON.parse(stdout) as {
    modules: unknown[];
    summary: { violations: Violation[] };
  };
  return { violations: result.summary.violations, modules: result.modules.length };
};

const scratch = mkdtempSync(join(tmpdir(), 'import-direction-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(dirname(join(scratch, path)), { recursive: true });
  writeFileSync(join(scratch, path), text);
};

describe('import direction', () => {
  it('holds for every module under functions/', { timeout: 60_000 }, async () => {
    const { violations, modules } = await cruise(root);
    expect(modules).toBeGreaterThan(100);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it('refuses each forbidden direction', { timeout: 60_000 }, async () => {
    write('tsconfig.json', JSON.stringify({ compilerOptions: { moduleResolution: 'bundler' } }));
    write('functions/shared/types/t.ts', "import { e } from '../errors';\nexport const t = e;\n");
    write('functions/shared/errors.ts', "import { d } from './data/d';\nexport const e = d;\n");
    write('functions/shared/data/d.ts', "import { m } from '../domain/m';\nexport const d = m;\n");
    write('functions/shared/domain/m.ts', "import { h } from '../http/h';\nexport const m = h;\n");
    write('functions/shared/http/h.ts', "import { m } from '../domain/m';\nexport const h = () => m;\n");
    write('functions/shared/aws/a.ts', "import { d } from '../data/d';\nexport const a = d;\n");
    write('functions/api/g/index.ts', "import { d } from '../../shared/data/d';\nexport const g = d;\n");
    write('functions/shared/ids.ts', "import { g } from '../api/g/index';\nexport const i = g;\n");
    write('functions/workers/w.ts', "import { l } from '../local/l';\nexport const w = l;\n");
    write('functions/local/l.ts', 'export const l = 1;\n');
    write('functions/shared/data/keys.ts', "import { e } from '../errors';\nexport const k = e;\n");
    write('functions/shared/pipeline/p.ts', 'export const p = 1;\n');
    write('functions/shared/auth/u.ts', "import { p } from '../pipeline/p';\nexport const u = p;\n");
    const { violations } = await cruise(scratch);
    expect(new Set(violations.map((v) => v.rule.name))).toEqual(
      new Set([
        'types-import-nothing',
        'base-imports-base',
        'data-not-upward',
        'key-catalogue-pure',
        'domain-not-http',
        'aws-adapters-alone',
        'entries-not-data',
        'shared-not-entries',
        'pipeline-for-entries',
        'only-local-knows-local',
        'no-circular',
      ]),
    );
  });
});
