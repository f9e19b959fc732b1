import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Workflows bench (part of `npm run bench`; `npm run bench -- workflows` runs only this part), against the
 * local stack it started, with definitions of N trivial steps (`actions/speech/spoken-text` of one short
 * sentence: no AWS call), runs started in-process through the domain function the route calls (no gateway, no authorizer):
 *  1. wall time of a sync run (median of RUNS) for N = 1 and N = STEPS, and the time per step; the same for
 *     async runs (the engine driven by the local `workflow-run` queue: the first message's worker runs the
 *     steps within its work budget), from the start until the run item shows it finished (polled every
 *     5 ms);
 *  2. DynamoDB requests per run and per step, counted at the SDK client (the polling reads not counted);
 *  3. workflow secrets: a sync run of one HTTP step that references two secrets against the same step with
 *     none (its target is refused, so no request leaves: what differs is loading the secrets), and sealing
 *     and opening one value with the local key (`aws/kms.ts`: on AWS a KMS call each instead).
 */
const RUNS = Number(process.env.BENCH_WORKFLOW_RUNS ?? 7);
const STEPS = 10;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export const benchWorkflows = async (dataDir: string, write: (line: string) => void) => {
  const { dynamodbClient } = await import('../../functions/shared/data/client');
  const polling = new AsyncLocalStorage<boolean>();
  let requests = 0;
  dynamodbClient.middlewareStack.add(
    (next) => async (args) => {
      if (!polling.getStore()) requests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchWorkflowCounter' },
  );
  const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const { runCli } = await import('../../functions/admin/cli');
  const { startWorkflowRun } = await import('../../functions/shared/domain/workflows/runs');
  const { getWorkflowRunRecord } = await import('../../functions/shared/data/workflow-runs/runs');
  const { companyId } = await createCompanyWithPlan(
    { name: 'Workflow bench', planId: 'legacy-pro' },
    new Date(),
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-workflows-'));
  for (const n of [1, STEPS]) {
    const file = join(dir, `wf${n}.json`);
    const steps = Array.from({ length: n }, (_, i) => ({
      id: `s${i}`,
      action: 'actions/speech/spoken-text',
      with: { markdown: 'Hi.' },
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
  const { putWorkflowSecret } = await import('../../functions/shared/domain/workflows/vault');
  for (const name of ['API_TOKEN', 'API_USER'])
    await putWorkflowSecret(companyId, name, { value: `value-of-${name}-0123456789` }, new Date());
  for (const [id, header] of [
    ['secrets-0', 'Bearer none'],
    ['secrets-2', 'Bearer {{ secrets.API_TOKEN }} {{ secrets.API_USER }}'],
  ]) {
    const file = join(dir, `${id}.json`);
    // A private address: the step is refused before any request, after its references are resolved.
    const url = 'https://10.0.0.1/hook';
    const steps = [
      { id: 'call', action: 'actions/http/request', with: { url, headers: { authorization: header } } },
    ];
    writeFileSync(file, JSON.stringify({ id, name: id, steps }));
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

  const run = async (n: number | string, mode: 'sync' | 'async') => {
    const started = await startWorkflowRun({
      companyId,
      workflowId: typeof n === 'string' ? n : `trivial-${n}`,
      mode,
      includeStepOutputs: false,
      input: {},
      callerScopes: [...SCOPES],
      caller: { source: 'key_bench' },
      hop: 0,
    });
    if (started.kind === 'finished') return;
    for (;;) {
      const record = await polling.run(true, () => getWorkflowRunRecord(companyId, started.runId));
      if (record && record.status !== 'running') return;
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  // Warm-up: the signing key, the plan cache, the saved versions, the first queue message.
  for (const n of [1, STEPS]) for (const mode of ['sync', 'async'] as const) await run(n, mode);

  const measure = async (n: number | string, mode: 'sync' | 'async') => {
    const times: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = requests;
      const started = performance.now();
      await run(n, mode);
      times.push(performance.now() - started);
      counts.push(requests - before);
    }
    return { ms: median(times), requests: median(counts) };
  };
  write(
    `\n== Workflows: runs of N trivial steps started in-process (median of ${RUNS}), DynamoDB requests per run and per step\n`,
  );
  write(
    `${'mode'.padEnd(34)} ${'N=1 ms'.padStart(8)} ${`N=${STEPS} ms`.padStart(9)} ${'ms/step'.padStart(8)} ${'req N=1'.padStart(8)} ${`req N=${STEPS}`.padStart(9)} ${'req/step'.padStart(9)}\n`,
  );
  const perStep: Record<string, number> = {};
  for (const mode of ['sync', 'async'] as const) {
    const one = await measure(1, mode);
    const many = await measure(STEPS, mode);
    perStep[mode] = (many.ms - one.ms) / (STEPS - 1);
    const label = mode === 'sync' ? 'sync (step runner in-process)' : 'async (workflow-run queue)  ';
    write(
      `${label.padEnd(34)} ${one.ms.toFixed(1).padStart(8)} ${many.ms.toFixed(1).padStart(9)} ${(perStep[mode] ?? 0).toFixed(2).padStart(8)} ${String(one.requests).padStart(8)} ${String(many.requests).padStart(9)} ${((many.requests - one.requests) / (STEPS - 1)).toFixed(1).padStart(9)}\n`,
    );
  }
  write(`ratio async / sync time per step: ${((perStep.async ?? 0) / (perStep.sync ?? 1)).toFixed(1)}\n`);

  // Workflow secrets: what loading two costs a run, and sealing and opening one with the local key.
  const noSecrets = await measure('secrets-0', 'sync');
  const twoSecrets = await measure('secrets-2', 'sync');
  write(
    '\n== Workflow secrets: a sync run of one HTTP step (target refused) with 0 and 2 secrets referenced\n',
  );
  write(
    `0 secrets ${noSecrets.ms.toFixed(1)} ms, ${noSecrets.requests} requests; 2 secrets ${twoSecrets.ms.toFixed(1)} ms, ` +
      `${twoSecrets.requests} requests; +${(twoSecrets.ms - noSecrets.ms).toFixed(1)} ms, ` +
      `+${twoSecrets.requests - noSecrets.requests} request (one BatchGetItem)\n`,
  );
  const { generateDataKey } = await import('../../functions/shared/aws/kms-data-keys');
  const { openWith, sealWith, unwrapDataKey, contextBytes } = await import('../../functions/shared/aws/kms');
  const context = { companyId, workflowSecret: 'API_TOKEN' };
  const aad = contextBytes(context);
  const N = 2000;
  const sealed: { wrapped: Buffer; value: Buffer }[] = [];
  let t = performance.now();
  for (let i = 0; i < N; i++) {
    const key = await generateDataKey(context);
    sealed.push({
      wrapped: key.wrapped,
      value: sealWith(key.plaintext, Buffer.from('value-of-API_TOKEN'), aad),
    });
  }
  const sealUs = ((performance.now() - t) * 1000) / N;
  t = performance.now();
  for (const s of sealed) openWith(await unwrapDataKey(s.wrapped, context), s.value, aad);
  const openUs = ((performance.now() - t) * 1000) / N;
  write(
    `seal one value (data key made and wrapped) ${sealUs.toFixed(1)} us, open one ${openUs.toFixed(1)} us (local key)\n`,
  );
};
