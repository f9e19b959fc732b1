import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';

/**
 * Generates the client types of the OpenAPI document with `openapi-typescript` and type-checks the client
 * scenario (`client/scenario.ts`) against them with the project's own `tsc`.
 *
 * `openapi-typescript` needs TypeScript 5, so it lives in a package of its own (`generator/`, installed by
 * `bin/setup.sh`) instead of the project's TypeScript 7 toolchain. The generated file is plain TypeScript
 * written at test time into the git-ignored `generated/`.
 */
const run = promisify(execFile);
const here = import.meta.dirname;
const root = join(here, '..', '..');
export const GENERATED_DIR = join(here, 'generated');
export const GENERATED_TYPES = join(GENERATED_DIR, 'openapi.ts');
const GENERATOR = join(here, 'generator', 'node_modules', 'openapi-typescript', 'bin', 'cli.js');

export interface ToolRun {
  ok: boolean;
  output: string;
}

const runTool = async (args: string[]): Promise<ToolRun> => {
  try {
    const { stdout, stderr } = await run(process.execPath, args, {
      cwd: root,
      maxBuffer: 32 * 1024 * 1024,
      timeout: 240_000,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` || failed.message };
  }
};

/** Writes the document and generates `generated/openapi.ts` from it. */
export const generateClientTypes = async (): Promise<ToolRun> => {
  if (!existsSync(GENERATOR)) {
    return {
      ok: false,
      output: `${GENERATOR} is missing: run bash bin/setup.sh (npm ci --prefix test/contract/generator)`,
    };
  }
  mkdirSync(GENERATED_DIR, { recursive: true });
  const documentFile = join(GENERATED_DIR, 'openapi.json');
  writeFileSync(documentFile, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
  return runTool([GENERATOR, documentFile, '--output', GENERATED_TYPES]);
};

/** `tsc --noEmit` (the project's TypeScript) over the scenario and the generated types. */
export const typecheckClientScenario = (): Promise<ToolRun> =>
  runTool([
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '--noEmit',
    '-p',
    join(here, 'client', 'tsconfig.json'),
  ]);
