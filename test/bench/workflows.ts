import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Workflows bench (part of `npm run bench`; `npm run bench -- workflows` runs only this part), against the
 * local stack it started, with definitions of N trivial steps (`actions/security/auth/jwt/generate`, no
 * scopes):
 *  1. wall time of a sync run through the local gateway (median of RUNS) for N = 1 and N = STEPS, and the
 *     time per step; the same for async runs (the step loop of `workflow-run.asl.json` in the local Step
 *     Functions interpreter, one step-worker invocation per step), from the POST until GET shows it finished;
 *  2. DynamoDB requests per run and per step, counted at the SDK client (async: the polling GETs subtracted).
 */
const RUNS = Number(process.env.BENCH_WORKFLOW_RUNS ?? 7);
const STEPS = 10;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export const benchWorkflows = async (apiUrl: string, dataDir: string, write: (line: string) => void) => {
  const { dynamodbClient } = await import('../../functions/shared/data/client');
  let requests = 0;
  dynamodbClient.middlewareStack.add(
    (next) => async (args) => {
      requests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchWorkflowCounter' },
  );
  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { createApiKey } = await import('../../functions/shared/data/api-keys');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const { runCli } = await import('../../functions/admin/cli');
  const now = new Date();
  const { companyId } = await createCompanyWithPlan({ name: 'Workflow bench', planId: 'legacy-pro' }, now);
  const apiKey = (await createApiKey(companyId, { name: 'bench', scopes: [...SCOPES] }, now)).key;
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const dir = mkdtempSync(join(tmpdir(), 'bench-workflows-'));
  for (const n of [1, STEPS]) {
    const file = join(dir, `wf${n}.json`);
    const steps = Array.from({ length: n }, (_, i) => ({
      id: `s${i}`,
      action: 'actions/security/auth/jwt/generate',
    }));
    writeFileSync(file, JSON.stringify({ id: `trivial-${n}`, name: `${n} trivial steps`, steps }));
    const code = await runCli(
      ['workflows', 'put', '--company', companyId, '--file', file, '--data-dir', dataDir],
      {
        out: () => undefined,
        err: (t) => write(`${t}\n`),
      },
    );
    if (code !== 0) throw new Error('workflows put failed');
  }
  rmSync(dir, { recursive: true, force: true });

  const post = async (n: number, mode: 'sync' | 'async') => {
    const res = await fetch(`${apiUrl}/v1/workflows/trivial-${n}/run`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ mode }),
    });
    const body = (await res.json()) as { runId: string; status?: string };
    if (res.status !== (mode === 'sync' ? 200 : 202)) throw new Error(`run answered ${res.status}`);
    return body;
  };
  const get = async (n: number, runId: string) => {
    const res = await fetch(`${apiUrl}/v1/workflows/trivial-${n}/runs/${runId}`, { headers });
    return ((await res.json()) as { run: { status: string } }).run.status;
  };
  // Warm-up (signing key, plan cache, first execution), then the requests of one polling GET (authorizer,
  // meter, run item), subtracted from the async figures.
  for (const n of [1, STEPS]) {
    await post(n, 'sync');
    await post(n, 'async');
  }
  const probe = await post(1, 'sync');
  const beforeGet = requests;
  await get(1, probe.runId);
  const perGet = requests - beforeGet;

  const measure = async (n: number, mode: 'sync' | 'async') => {
    const times: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = requests;
      let polls = 0;
      const started = performance.now();
      const { runId } = await post(n, mode);
      if (mode === 'async') {
        for (;;) {
          polls += 1;
          if ((await get(n, runId)) !== 'running') break;
          await new Promise((r) => setTimeout(r, 5));
        }
      }
      times.push(performance.now() - started);
      counts.push(requests - before - polls * perGet);
    }
    return { ms: median(times), requests: median(counts) };
  };
  write(
    `\n== Workflows: runs of N trivial steps (median of ${RUNS}), DynamoDB requests per run and per step\n`,
  );
  write(
    `${'mode'.padEnd(34)} ${'N=1 ms'.padStart(8)} ${`N=${STEPS} ms`.padStart(9)} ${'ms/step'.padStart(8)} ${'req N=1'.padStart(8)} ${`req N=${STEPS}`.padStart(9)} ${'req/step'.padStart(9)}\n`,
  );
  const rows: Record<
    string,
    { one: { ms: number; requests: number }; many: { ms: number; requests: number } }
  > = {};
  for (const mode of ['sync', 'async'] as const) {
    const one = await measure(1, mode);
    const many = await measure(STEPS, mode);
    rows[mode] = { one, many };
    const label = mode === 'sync' ? 'sync (in the workflows function)' : 'async (local Step Functions)';
    write(
      `${label.padEnd(34)} ${one.ms.toFixed(1).padStart(8)} ${many.ms.toFixed(1).padStart(9)} ${((many.ms - one.ms) / (STEPS - 1)).toFixed(2).padStart(8)} ${String(one.requests).padStart(8)} ${String(many.requests).padStart(9)} ${((many.requests - one.requests) / (STEPS - 1)).toFixed(1).padStart(9)}\n`,
    );
  }
  const perStep = (mode: 'sync' | 'async') => {
    const row = rows[mode];
    return row ? (row.many.ms - row.one.ms) / (STEPS - 1) : Number.NaN;
  };
  write(`ratio async / sync time per step: ${(perStep('async') / perStep('sync')).toFixed(1)}\n`);
  write(
    `(requests include the authorizer's reads and the api_requests meter of the POST; polling GETs: ${perGet} each, subtracted)\n`,
  );
};
