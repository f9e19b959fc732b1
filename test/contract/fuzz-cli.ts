import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { localRuntimeEnvironment } from '../../functions/local/stack';
import { startStackProcess } from '../integration/local-stack-process';
import { formatReport, runFuzz } from './fuzz';
import { seedTenant } from './seed';

/**
 * `npm run fuzz -- [--seed S] [--count N] [--concurrency C]`: starts a local stack of its own (random ports,
 * temporary data directory), seeds a tenant, sends N requests generated from the served OpenAPI document
 * (default 20,000) and prints the answers by status, kind and check, then every distinct finding. Stops the
 * stack and exits 1 when there is a finding.
 */
const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 1_000_000_000) },
    count: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '6' },
  },
});
const seed = Number(values.seed);
const count = Number(values.count);

const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-fuzz-'));
const stack = await startStackProcess(dataDir);
let exitCode = 1;
try {
  Object.assign(process.env, localRuntimeEnvironment({ ...stack.description, dataDir }));
  const tenant = await seedTenant(stack.description.apiUrl, dataDir);
  process.stdout.write(`fuzzing ${stack.description.apiUrl} with seed ${seed}, ${count} requests\n`);
  const report = await runFuzz({
    apiUrl: stack.description.apiUrl,
    tenant,
    seed,
    count,
    concurrency: Number(values.concurrency),
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
