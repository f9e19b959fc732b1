import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { operationTable } from './operation-table';
import { resourceTreeSource } from './sdk-methods';

/**
 * The SDK's generation step (`npm run generate` in `sdk/`, part of its build): writes into the git-ignored
 * `src/generated/`
 * - `openapi.json`, the document, built from the route table (or read from `--document <file>`),
 * - `openapi.ts`, its types, by `openapi-typescript` (the contract tests' generator package, which carries the
 *   TypeScript 5 that `openapi-typescript` needs; the project's own TypeScript is 7),
 * - `operations.ts`, the run-time facts of each operation (see `operation-table.ts`),
 * - `resource-tree.ts`, the type of the resource methods named by `x-sdk-method` (see `sdk-methods.ts`),
 * - `package.ts`, the package's name and version read from `package.json` (the `User-Agent` the client sends).
 * Nothing here is edited by hand: a change of the document reaches the SDK at its next build.
 */
const sdk = join(import.meta.dirname, '..');
const root = join(sdk, '..');
const out = join(sdk, 'src', 'generated');
const generator = join(
  root,
  'test',
  'contract',
  'generator',
  'node_modules',
  'openapi-typescript',
  'bin',
  'cli.js',
);

const documentArg = process.argv.indexOf('--document');
const documentFile = documentArg >= 0 ? process.argv[documentArg + 1] : undefined;
const document: Record<string, unknown> =
  documentFile === undefined
    ? JSON.parse(JSON.stringify(buildOpenApiDocument()))
    : JSON.parse(readFileSync(documentFile, 'utf8'));

if (!existsSync(generator)) {
  throw new Error(`${generator} is missing: run bash bin/setup.sh (npm ci --prefix test/contract/generator)`);
}
mkdirSync(out, { recursive: true });
const documentPath = join(out, 'openapi.json');
writeFileSync(documentPath, `${JSON.stringify(document, null, 2)}\n`);
execFileSync(process.execPath, [generator, documentPath, '--output', join(out, 'openapi.ts')], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
});
const table = operationTable(document);
writeFileSync(
  join(out, 'operations.ts'),
  [
    '/** Generated from the OpenAPI document by sdk/scripts/generate.ts: do not edit. */',
    `export const OPERATIONS = ${JSON.stringify(table, null, 2)} as const;`,
    '',
  ].join('\n'),
);
writeFileSync(
  join(out, 'resource-tree.ts'),
  resourceTreeSource(
    Object.fromEntries(Object.entries(table).flatMap(([id, facts]) => (facts.sdk ? [[id, facts.sdk]] : []))),
    (id) => (table[id]?.page ?? null) !== null,
  ),
);
const pkg: { name: string; version: string } = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8'));
writeFileSync(
  join(out, 'package.ts'),
  [
    '/** Generated from package.json by sdk/scripts/generate.ts: do not edit. */',
    `export const PACKAGE_NAME = ${JSON.stringify(pkg.name)};`,
    `export const PACKAGE_VERSION = ${JSON.stringify(pkg.version)};`,
    '',
  ].join('\n'),
);
process.stdout.write(`generated ${out}/openapi.ts, operations.ts, resource-tree.ts and package.ts\n`);
