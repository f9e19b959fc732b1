import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';

/**
 * Lints the generated OpenAPI document with Redocly (`redocly.yaml`) and Spectral (`.spectral.yaml`), both
 * offline. Any problem of any severity fails, and the failure lists every problem (rule, location, message).
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
const documentFile = join(dir, 'openapi.json');
writeFileSync(documentFile, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const offline = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_COLOR: '1',
};

/** Runs a CLI that may exit non-zero when it finds problems; returns its standard output. */
const runCli = async (bin: string, args: string[]): Promise<string> => {
  try {
    const { stdout } = await run(process.execPath, [join(root, 'node_modules', bin), ...args], {
      cwd: root,
      env: offline,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    if (failed.stdout?.trim().startsWith('{') || failed.stdout?.trim().startsWith('[')) return failed.stdout;
    throw new Error(`${bin} failed: ${failed.stderr ?? String(error)}`);
  }
};

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer?: string }[];
}

interface SpectralProblem {
  code: string;
  severity: number;
  message: string;
  path: (string | number)[];
}

const SPECTRAL_SEVERITY = ['error', 'warn', 'info', 'hint'];

describe('the generated OpenAPI document', () => {
  it('has no Redocly problems under the recommended ruleset', { timeout: 120_000 }, async () => {
    const out = await runCli('@redocly/cli/bin/cli.js', [
      'lint',
      documentFile,
      '--config',
      join(root, 'redocly.yaml'),
      '--format',
      'json',
    ]);
    const report = JSON.parse(out) as { problems: RedoclyProblem[] };
    const problems = report.problems.map(
      (p) => `${p.ruleId} (${p.severity}) ${p.location[0]?.pointer ?? ''}: ${p.message}`,
    );
    expect(problems, `Redocly found ${problems.length} problem(s)`).toEqual([]);
  });

  it('has no Spectral problems under spectral:oas and the OWASP API ruleset', {
    timeout: 120_000,
  }, async () => {
    const out = await runCli('@stoplight/spectral-cli/dist/index.js', [
      'lint',
      documentFile,
      '--ruleset',
      join(root, '.spectral.yaml'),
      '--format',
      'json',
      '--quiet',
    ]);
    const report = JSON.parse(out) as SpectralProblem[];
    const problems = report.map(
      (p) =>
        `${p.code} (${SPECTRAL_SEVERITY[p.severity] ?? p.severity}) #/${p.path.map((s) => String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}: ${p.message}`,
    );
    expect(problems, `Spectral found ${problems.length} problem(s)`).toEqual([]);
  });
});
