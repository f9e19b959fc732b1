import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { localRuntimeEnvironment } from '../../functions/local/stack';
import { startStackProcess } from '../integration/local-stack-process';
import { formatReport, REQUEST_KINDS, type RequestKind, runFuzz } from './fuzz';
import { seedTenant } from './seed';

/**
 * `npm run fuzz -- [--requests N] [--seed S] [--concurrency C] [--kind K]…`: starts a local stack of its own
 * (random ports, temporary data directory), seeds a tenant, sends N requests generated from the served
 * OpenAPI document and prints the answers by status, kind and check, then every distinct finding. Stops the
 * stack and exits 1 when there is a finding, 2 when the command line is wrong (before anything starts).
 */
/** Words joined by commas, in lines of at most 100 characters, each starting with `indent`. */
const wrapped = (words: readonly string[], indent: string): string =>
  words
    .reduce<string[]>((lines, word, i) => {
      const item = i === words.length - 1 ? word : `${word},`;
      const last = lines.at(-1);
      if (last !== undefined && last.length + item.length + 1 <= 100)
        lines[lines.length - 1] = `${last} ${item}`;
      else lines.push(`${indent}${item}`);
      return lines;
    }, [])
    .join('\n');

const USAGE = `Usage: npm run fuzz -- [options]

Starts a local stack of its own (random ports, temporary data directory, stopped at the end), seeds a
tenant, sends requests generated from the served OpenAPI document and checks every answer against it.
Prints the answers by status, kind and check, then every distinct finding; exits 1 when there is one.

Options:
  --requests N     how many requests to send (default 20000; --count is the same option)
  --seed S         seed of the generator, an integer; the same seed sends the same requests
                   (default: drawn from the clock and printed)
  --concurrency C  requests in flight at once (default 6)
  --kind K         only requests of kind K; repeat for several kinds. Kinds:
${wrapped(REQUEST_KINDS, '                   ')}
  -h, --help       print this help and exit

Example: npm run fuzz -- --requests 10000 --seed 42 --kind prototype-member --kind deep-nesting
`;

/** A refused command line: the reason, the usage, exit status 2. */
const usageError = (reason: string): never => {
  process.stderr.write(`fuzz: ${reason}\n\n${USAGE}`);
  process.exit(2);
};

const integerOption = (name: string, value: string, min: number): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    usageError(`--${name} takes an integer of at least ${min}, not ${JSON.stringify(value)}`);
  return n;
};

const parsed = (() => {
  try {
    return parseArgs({
      strict: true,
      allowPositionals: false,
      options: {
        requests: { type: 'string' },
        count: { type: 'string' },
        seed: { type: 'string' },
        concurrency: { type: 'string', default: '6' },
        kind: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    // `parseArgs` names the option it refused (unknown, missing its value, a positional argument).
    return usageError((error as Error).message);
  }
})();
const { values } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (values.requests !== undefined && values.count !== undefined)
  usageError('--requests and --count are the same option; give one');
const count = integerOption('requests', values.requests ?? values.count ?? '20000', 1);
const seed = integerOption('seed', values.seed ?? String(Date.now() % 1_000_000_000), 0);
const concurrency = integerOption('concurrency', values.concurrency, 1);
const unknownKinds = (values.kind ?? []).filter((k) => !(REQUEST_KINDS as readonly string[]).includes(k));
if (unknownKinds.length > 0) usageError(`unknown --kind ${unknownKinds.join(', ')}`);
const kinds = values.kind ? (values.kind as RequestKind[]) : undefined;

const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-fuzz-'));
const stack = await startStackProcess(dataDir);
let exitCode = 1;
try {
  Object.assign(process.env, localRuntimeEnvironment({ ...stack.description, dataDir }));
  const tenant = await seedTenant(stack.description.apiUrl, dataDir);
  process.stdout.write(
    `fuzzing ${stack.description.apiUrl} with seed ${seed}, ${count} requests` +
      `${kinds ? ` of kinds ${kinds.join(', ')}` : ''}\n`,
  );
  const report = await runFuzz({
    apiUrl: stack.description.apiUrl,
    tenant,
    seed,
    count,
    concurrency,
    ...(kinds ? { kinds } : {}),
    onProgress: (done) => {
      if (done % 2000 === 0) process.stdout.write(`  ${done} requests\n`);
    },
  });
  await tenant.close();
  process.stdout.write(formatReport(report));
  exitCode = report.findings.length === 0 ? 0 : 1;
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
