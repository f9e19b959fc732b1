import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { startLocalStack } from '../../functions/local/stack';
import { measureImportTime, synthesizeBundles } from './bundles';

/**
 * `npm run bench`: figures and ratios measured within one run (never asserted by tests).
 *  1. bundle bytes of every Lambda (from a real `cdk synth`) and the time to import each bundle vs a bare
 *     handler importing only the same AWS SDK modules (`npm run bench -- bundles` runs only this part),
 *  2. DynamoDB requests per call of each implemented route, counted at the SDK client,
 *  3. throughput of GET /v1/self through the local gateway vs the same handlers invoked in-process,
 *  4. workflows (`./workflows.ts`; `npm run bench -- workflows` runs only this part),
 *  5. events: the DynamoDB cost of a job's event, and deliveries per second (`npm run bench -- events`),
 *  6. start-up of the local stack with an empty table and with 100,000 audit entries (`./startup.ts`, its
 *     own process; `npm run bench -- startup` runs only this part).
 * `npm run bench -- markdown` reads adversarial and ordinary markdown aloud at 10k, 50k and 100k characters
 * through every door's domain function, then once through the gateway with a probe (`./markdown.ts`).
 * `npm run bench -- tracing` measures what tracing costs a cold start, and its alternatives (`./tracing.ts`).
 * `npm run bench -- mcp` runs the bundles and the MCP tool calls against their routes, and no more
 * (`-- --skip-bundles mcp`: the tool calls only). `npm run bench -- cost` prints the AWS bill of each
 * operation and of each plan at its full allowance (`./cost-report.ts`), its own stack, and no more.
 * Everything listens on loopback and stops at the end; request loops are bounded.
 */
const root = join(import.meta.dirname, '..', '..');
const KB = 1024;
/**
 * Bundle budgets (ARCHITECTURE.md §10), for what each function carries itself (lazy modules built beside the
 * bundle are not counted: they load on first use). Workers share the route groups' 300 KB; the job workers
 * are far below it. The MCP group has 450 KB: it carries the MCP SDK and, for `run_workflow`, the run engine
 * with every action; the workflows group and the workflow step worker run every action too, and have the same
 * 450 KB (decision 0028). A bundle over its
 * budget fails `npm run bench -- bundles` (exit code 1) after every figure is printed.
 */
const BUDGET = {
  api: 300 * KB,
  mcp: 450 * KB,
  /** The workflows group and the step worker run every action, as the MCP group does (decision 0028). */
  runsEveryAction: 450 * KB,
  authorizer: 150 * KB,
  worker: 300 * KB,
  other: 300 * KB,
  importRatio: 1.3,
};
/**
 * Target of a route group's import against the bare handler with the same AWS SDK and Powertools modules that
 * builds, at module scope, what every function builds there (the Powertools Logger, Metrics and Tracer, the
 * DynamoDB document client: `bareInitCode`): what the group's own code does at load (schemas, the OpenAPI
 * document, the MCP SDK) is deferred to first use.
 */
const GROUP_IMPORT_TARGET = 1.1;
const budgetOf = (functionPath: string): { kind: string; bytes: number } => {
  if (/authorizer/i.test(functionPath)) return { kind: 'authorizer', bytes: BUDGET.authorizer };
  if (/\/Group-mcp\//.test(functionPath)) return { kind: 'MCP group', bytes: BUDGET.mcp };
  if (/\/Group-workflows\/|\/WorkflowRuns\/Worker\//.test(functionPath))
    return { kind: 'every-action', bytes: BUDGET.runsEveryAction };
  if (/\/Group-/.test(functionPath)) return { kind: 'route group', bytes: BUDGET.api };
  if (/\/Worker\//.test(functionPath)) return { kind: 'worker', bytes: BUDGET.worker };
  return { kind: 'function', bytes: BUDGET.other };
};
const skipBundles = process.argv.includes('--skip-bundles');
const bundlesOnly = process.argv.includes('bundles');
const transcriptionsOnly = process.argv.includes('transcriptions');
const jobsOnly = process.argv.includes('jobs');
const workflowsOnly = process.argv.includes('workflows');
const mcpOnly = process.argv.includes('mcp');
const eventsOnly = process.argv.includes('events');
const startupOnly = process.argv.includes('startup');
const tracingOnly = process.argv.includes('tracing');
const markdownOnly = process.argv.includes('markdown');
const IMPORT_RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = 16;

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const section = (title: string) => process.stdout.write(`\n== ${title}\n`);

/** Start-up of the local stack (`./startup.ts`), in a process of its own: it points the data modules at it. */
const benchStartup = async () => {
  section('Local stack start-up');
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'startup.ts')], {
    cwd: root,
    stdio: 'inherit',
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the start-up bench exited with ${code}`);
};

if (tracingOnly) {
  section('Tracing at cold start (./tracing.ts)');
  const { benchTracing } = await import('./tracing');
  benchTracing(root, IMPORT_RUNS);
  process.exit();
}

if (startupOnly) {
  await benchStartup();
  process.exit();
}

if (process.argv.includes('cost')) {
  await (await import('./cost-report')).benchCost((line) => process.stdout.write(line));
  process.exit();
}

if (!skipBundles && !transcriptionsOnly && !workflowsOnly && !eventsOnly && !jobsOnly && !markdownOnly) {
  const { bundles, cleanup } = synthesizeBundles(root);
  try {
    section('Lambda bundles (minified ESM, bytes)');
    const overBudget: string[] = [];
    for (const { functionPath, bytes } of bundles) {
      const budget = budgetOf(functionPath);
      if (bytes > budget.bytes) overBudget.push(functionPath);
      process.stdout.write(
        `${functionPath.padEnd(60)} ${fmt(bytes).padStart(10)}  ${fmt((100 * bytes) / budget.bytes, 1).padStart(5)}% of the ${budget.kind} budget (${budget.bytes / KB} KB)${bytes > budget.bytes ? '  OVER' : ''}\n`,
      );
    }
    if (overBudget.length > 0) {
      process.stdout.write(`OVER BUDGET: ${overBudget.join(', ')}\n`);
      process.exitCode = 1;
    }
    section(
      `Import time, CPU ms (fresh Node process, median of ${IMPORT_RUNS}): bundle vs a bare handler importing the same AWS SDK modules (sdk), the same AWS SDK and Powertools modules (sdk+pt), and the same modules with the Powertools instances and the DynamoDB client built at module scope (init); each ratio is the median of the rounds' ratios`,
    );
    process.stdout.write(
      `${'function'.padEnd(60)} ${'bundle'.padStart(7)} ${'sdk'.padStart(7)} ${'ratio'.padStart(6)}  ${'sdk+pt'.padStart(7)} ${'ratio'.padStart(6)}  ${'init'.padStart(7)} ${'ratio'.padStart(6)}   wall ms: bundle / sdk / sdk+pt / init\n`,
    );
    const over = (ratio: number) => (ratio > BUDGET.importRatio ? '!' : ' ');
    const overTarget = (functionPath: string, ratio: number) =>
      ratio > BUDGET.importRatio
        ? '!'
        : /\/Group-/.test(functionPath) && ratio > GROUP_IMPORT_TARGET
          ? '*'
          : ' ';
    for (const bundle of bundles) {
      const measured = measureImportTime(bundle, IMPORT_RUNS);
      const { bundle: own, bare, bareWithPowertools, bareWithInit, sdkModules } = measured;
      const {
        bare: ratio,
        bareWithPowertools: ratioWithPowertools,
        bareWithInit: ratioWithInit,
      } = measured.ratio;
      process.stdout.write(
        `${bundle.functionPath.padEnd(60)} ${fmt(own.cpuMs, 1).padStart(7)} ${fmt(bare.cpuMs, 1).padStart(7)} ${fmt(ratio, 2).padStart(6)}${over(ratio)} ${fmt(bareWithPowertools.cpuMs, 1).padStart(7)} ${fmt(ratioWithPowertools, 2).padStart(6)}  ${fmt(bareWithInit.cpuMs, 1).padStart(7)} ${fmt(ratioWithInit, 2).padStart(6)}${overTarget(bundle.functionPath, ratioWithInit)}  ${fmt(own.wallMs, 1)} / ${fmt(bare.wallMs, 1)} / ${fmt(bareWithPowertools.wallMs, 1)} / ${fmt(bareWithInit.wallMs, 1)}  ${sdkModules.map((m) => m.replace('@aws-sdk/', '')).join(' ')}\n`,
      );
    }
    process.stdout.write(
      `! above the ${BUDGET.importRatio}x budget; * a route group above ${GROUP_IMPORT_TARGET}x the bare handler with the same modules and their instances built (init)\n`,
    );
  } finally {
    cleanup();
  }
}
if (bundlesOnly && !mcpOnly) process.exit();

const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-bench-'));
// The events bench delivers to a receiver on loopback.
const stack = await startLocalStack({
  dataDir,
  onAccessLog: () => undefined,
  shipLogs: false,
  allowLoopbackOutbound: true,
});
try {
  const { ddb, dynamodbClient, tableName } = await import('../../functions/shared/data/client');
  // The throughput figures are the gateway's and the handlers', not the demo plan's request rate or allowance:
  // the demo company gets limits no loop here reaches (set before anything caches the company).
  const { companyKey } = await import('../../functions/shared/data/companies');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: companyKey(stack.demo.companyId),
      UpdateExpression: 'SET limitOverrides = :o',
      ExpressionAttributeValues: {
        ':o': { requestsPerSecond: 1_000_000, burst: 1_000_000, apiRequestsPerMonth: 100_000_000 },
      },
    }),
  );
  let ddbRequests = 0;
  dynamodbClient.middlewareStack.add(
    (next) => async (args) => {
      ddbRequests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  const counted = async <T>(fn: () => Promise<T>): Promise<number> => {
    const before = ddbRequests;
    await fn();
    return ddbRequests - before;
  };

  const { apiUrl } = stack.description;
  if (eventsOnly) {
    await (await import('./events')).benchEvents((line) => process.stdout.write(line));
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  if (markdownOnly) {
    await (await import('./markdown')).benchMarkdown(root, apiUrl, stack.demo.apiKey, (line) =>
      process.stdout.write(line),
    );
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  if (jobsOnly) {
    await (await import('./jobs')).benchJobs(apiUrl, (line) => process.stdout.write(line));
    // `BENCH_SPEECH_RUNS=0` leaves out the 12,000-character speech job (minutes on a loaded machine).
    if (process.env.BENCH_SPEECH_RUNS !== '0')
      await (await import('./speech-jobs')).benchSpeechJob(apiUrl, (line) => process.stdout.write(line));
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  if (transcriptionsOnly) {
    await (await import('./transcriptions')).benchTranscriptions(apiUrl, (line) =>
      process.stdout.write(line),
    );
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  if (workflowsOnly) {
    await (await import('./workflows')).benchWorkflows(dataDir, (line) => process.stdout.write(line));
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  const key = stack.demo.apiKey;
  const authorizer = (await import('../../functions/authorizer/index')).handler;
  const company = (await import('../../functions/api/company/index')).handler;
  const publicGroup = (await import('../../functions/api/public/index')).handler;
  const usage = (await import('../../functions/api/usage/index')).handler;

  const context = {
    awsRequestId: 'bench',
    functionName: 'bench',
    getRemainingTimeInMillis: () => 29_000,
  } as unknown as Context;
  const authorizerEvent = {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:local:000000000000:local/v1/GET/self',
    headers: { 'x-api-key': key },
    requestContext: { requestId: 'bench' },
  } as unknown as APIGatewayRequestAuthorizerEvent;
  const authResult = await authorizer(authorizerEvent);
  const proxyEvent = (resource: string, authorized: boolean, query: Record<string, string> | null = null) =>
    ({
      resource,
      path: resource,
      httpMethod: 'GET',
      headers: {},
      queryStringParameters: query,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'bench', authorizer: authorized ? authResult.context : null },
    }) as unknown as APIGatewayProxyEvent;

  const { createApiKey } = await import('../../functions/shared/data/api-keys');
  const { SCOPES } = await import('../../functions/shared/types/scopes');
  const { mintJwt } = await import('../../functions/shared/auth/jwt-mint');
  const { currentSigningKey, loadKeySet } = await import('../../functions/shared/auth/signing-keys');
  const freshKey = (
    await createApiKey(stack.demo.companyId, { name: 'bench', scopes: [...SCOPES] }, new Date())
  ).key;
  const token = (
    await mintJwt(
      { companyId: stack.demo.companyId, source: { kind: 'operator' }, scopes: [...SCOPES], advanced: true },
      currentSigningKey(await loadKeySet()),
      new Date(),
    )
  ).token;
  const withHeaders = (headers: Record<string, string>) =>
    ({
      ...authorizerEvent,
      headers,
      requestContext: { requestId: 'bench', identity: { sourceIp: '127.0.0.1' } },
    }) as never;

  section('DynamoDB requests per call (counted at the SDK client)');
  const rows: [string, () => Promise<unknown>][] = [
    [
      'authorizer, new API key (company already cached)',
      () => authorizer(withHeaders({ 'x-api-key': freshKey })),
    ],
    ['authorizer, API key, warm', () => authorizer(withHeaders({ 'x-api-key': freshKey }))],
    // A token's id and root credential are checked against the revocations: one batch read per token, then
    // cached for the authorizer cache TTL, as API key decisions are.
    [
      'authorizer, new JWT (revocations of its jti and src)',
      () => authorizer(withHeaders({ 'x-jwt-token': token })),
    ],
    ['authorizer, JWT, warm', () => authorizer(withHeaders({ 'x-jwt-token': token }))],
    ['authorizer (API key)', () => authorizer(authorizerEvent)],
    [
      'authorizer (malformed key)',
      () => authorizer({ ...authorizerEvent, headers: { 'x-api-key': 'sk-bad' } }).catch(() => undefined),
    ],
    ['GET /v1/self handler (1 read + api_requests meter)', () => company(proxyEvent('/self', true), context)],
    ['GET /v1/usage handler (1 batch read + meter)', () => usage(proxyEvent('/usage', true), context)],
    ['GET /v1/public/plans handler', () => publicGroup(proxyEvent('/public/plans', false), context)],
    ['GET /v1/openapi.json handler', () => publicGroup(proxyEvent('/openapi.json', false), context)],
    [
      'GET /v1/self via gateway (authorizer + handler)',
      () => fetch(`${apiUrl}/v1/self`, { headers: { 'x-api-key': key } }).then((r) => r.text()),
    ],
    ['GET /v1/public/plans via gateway', () => fetch(`${apiUrl}/v1/public/plans`).then((r) => r.text())],
  ];
  for (const [name, fn] of rows) process.stdout.write(`${name.padEnd(50)} ${await counted(fn)}\n`);

  section('MCP tools vs their routes: DynamoDB requests per call (handlers in-process, meter included)');
  const { benchMcpRequests } = await import('./mcp');
  await benchMcpRequests({
    authorizerContext: authResult.context,
    companyId: stack.demo.companyId,
    context,
    countDynamoDb: counted,
    write: (line) => process.stdout.write(line),
  });
  if (mcpOnly) {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }

  section('Storage routes: requests per call (handler in-process, DynamoDB includes the meter)');
  const { benchStorageRequests } = await import('./storage');
  await benchStorageRequests({
    authorizerContext: authResult.context,
    context,
    countDynamoDb: counted,
    write: (line) => process.stdout.write(line),
  });

  const throughput = async (fn: () => Promise<unknown>): Promise<number> => {
    for (let i = 0; i < 100; i++) await fn(); // warm-up
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) {
          next += 1;
          await fn();
        }
      }),
    );
    return REQUESTS / ((performance.now() - started) / 1000);
  };

  // A keep-alive client on node:http: lighter than fetch, so the figure is the gateway's, not the client's.
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = (path: string, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${apiUrl}${path}`, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });

  section(`Throughput of GET /v1/self, ${REQUESTS} calls, concurrency ${CONCURRENCY}`);
  const viaGateway = await throughput(async () => {
    const status = await get('/v1/self', { 'x-api-key': key });
    if (status !== 200) throw new Error(`status ${status}`);
  });
  const handlerOnly = await throughput(async () => {
    const res = await company(proxyEvent('/self', true), context);
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
  });
  const authorizerAndHandler = await throughput(async () => {
    const auth = await authorizer(authorizerEvent);
    const event = proxyEvent('/self', true);
    event.requestContext.authorizer = auth.context ?? null;
    const res = await company(event, context);
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
  });
  process.stdout.write(`handler in-process                 ${fmt(handlerOnly).padStart(8)} req/s\n`);
  process.stdout.write(`authorizer + handler in-process    ${fmt(authorizerAndHandler).padStart(8)} req/s\n`);
  process.stdout.write(`through the local gateway (HTTP)   ${fmt(viaGateway).padStart(8)} req/s\n`);
  process.stdout.write(
    `ratio gateway / (authorizer + handler in-process): ${fmt(viaGateway / authorizerAndHandler, 2)}\n`,
  );
  process.stdout.write(
    `ratio gateway / handler in-process:                ${fmt(viaGateway / handlerOnly, 2)}\n`,
  );
  agent.destroy();

  // Media transforms: enqueue-to-done vs ffmpeg directly, DynamoDB requests per enqueue and transition.
  await (await import('./transcodes')).benchTranscodes(apiUrl, (line) => process.stdout.write(line));

  // Transcriptions: fixed overhead of a local job, DynamoDB requests per enqueue, get and transition.
  await (await import('./transcriptions')).benchTranscriptions(apiUrl, (line) => process.stdout.write(line));

  // Workflows: sync vs async time per step, DynamoDB requests per run and per step.
  await (await import('./workflows')).benchWorkflows(dataDir, (line) => process.stdout.write(line));
  // Events: the outbox's cost on a job's move, and deliveries per second.
  await (await import('./events')).benchEvents((line) => process.stdout.write(line));

  // Dynadata and messaging.
  const { benchDynadata } = await import('./dynadata');
  await benchDynadata({
    companyId: stack.demo.companyId,
    authorizerContext: authResult.context ?? undefined,
    context,
    counted,
    write: (line) => process.stdout.write(line),
  });
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

await benchStartup();
