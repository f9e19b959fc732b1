import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_PLANS } from '../../functions/shared/domain/plan-catalog';
import { measureOperations } from './cost';
import { floorOf, floorTotal } from './cost-floor';
import {
  type CostLine,
  dominant,
  type FunctionConfig,
  LINES,
  type MeasuredOperation,
  priceOperation,
  total,
  type Volume,
  ZERO_USAGE,
} from './cost-model';
import { PRICES, PRICES_RECORDED_ON } from './prices';

/**
 * `npm run bench -- cost`: the AWS bill per million of each operation, split by service, at volume and at low
 * volume (`cost-model.ts`), beside its floor (`cost-floor.ts`) and the ratio, and the bill of one company of
 * each plan at its full monthly allowance beside the plan's price. It fails after printing when a computed
 * unit count differs from DynamoDB Local's on any request but a transaction (`request-meter.ts`). Lambda memory and system log
 * level are read from the synthesized CDK stacks (`function-config.ts`); the figures of use come from `cost.ts`.
 */
const root = join(import.meta.dirname, '..', '..');
const usd = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(4));
const SHORT: Record<CostLine, string> = {
  WAF: 'WAF',
  'API Gateway': 'APIGW',
  'Lambda requests': 'λ req',
  'Lambda GB-s': 'λ GB-s',
  'DynamoDB writes': 'DDB W',
  'DynamoDB reads': 'DDB R',
  'Step Functions': 'SFN',
  'SQS requests': 'SQS',
  'S3 requests': 'S3',
  Polly: 'Polly',
  Transcribe: 'Transcr',
  MediaConvert: 'MConv',
  'CloudWatch Logs': 'Logs',
  'X-Ray': 'X-Ray',
  KMS: 'KMS',
};

const GIB = 1024 ** 3;
/** Storage a plan allows, billed per GB-month (S3 Standard; DynamoDB Standard), recorded with the prices. */
const S3_PER_GB_MONTH = 0.023;
const DYNAMODB_PER_GB_MONTH = 0.25;

type Priced = MeasuredOperation & { lines: Record<CostLine, number> };

/**
 * Where one line dominates an operation, the cheaper design and its figure, computed from the same measured
 * use (`docs/decisions/*-operation-costs.md` records what was changed and why not).
 */
const closingNotes = (
  priced: Priced[],
  functionOf: (fn: string) => FunctionConfig,
  write: (line: string) => void,
) => {
  const find = (prefix: string) => priced.find((p) => p.name.startsWith(prefix));
  const perMillion = (n: number) => `$${usd(n * 1_000_000)}`;
  write('\nclosing notes (USD per million operations):\n');
  const hooks = find('webhook delivery');
  if (hooks)
    write(
      `- webhook delivery ${perMillion(total(hooks.lines))}: ordered by SQS FIFO message groups (${((hooks.usage.sqsFifoRequests ?? 0) / hooks.usage.runs).toFixed(0)} requests a delivery), no lane item; on Step Functions Standard its nine or so transitions a delivery made it $239\n`,
    );
  const message = find('message sent');
  if (message)
    write(
      `- message sent and delivered ${perMillion(total(message.lines))}: an Express delivery machine (request + duration); Standard's transition alone was $25 of $37\n`,
    );
  const run = find('workflow run, 3 steps, async');
  if (run) {
    const sqs = run.usage.sqsRequests / run.usage.runs;
    const writes = run.lines['DynamoDB writes'];
    write(
      `- workflow run, 3 steps, async ${perMillion(total(run.lines))}: a step loop driven by SQS (${sqs.toFixed(0)} requests a run; steps within a message's 30 s run in one invocation); DynamoDB writes ${((100 * writes) / total(run.lines)).toFixed(0)} %; on Step Functions Standard its 11 transitions made it $320\n`,
    );
  }
  const self = find('GET /v1/self');
  if (self) {
    const authorizer = self.usage.invocations.filter((i) => i.fn.includes('Authorizer'));
    const alone = priceOperation(
      { ...ZERO_USAGE, runs: self.usage.runs, invocations: authorizer },
      functionOf,
    );
    const cost = alone['Lambda requests'] + alone['Lambda GB-s'];
    write(
      `- the authorizer on every request: ${perMillion(cost)} of a metered read's ${perMillion(total(self.lines))} (${((100 * cost) / total(self.lines)).toFixed(0)} %); API Gateway REST is ${perMillion(self.lines['API Gateway'])} (${((100 * self.lines['API Gateway']) / total(self.lines)).toFixed(0)} %)\n`,
    );
  }
};

export const benchCost = async (write: (line: string) => void) => {
  const functions = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', join(root, 'test', 'bench', 'function-config.ts')], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n')
      .pop() ?? '{}',
  ) as Record<string, FunctionConfig>;
  const functionOf = (fn: string) => {
    const config = functions[fn];
    if (config === undefined) throw new Error(`no function ${fn} in the synthesized stacks`);
    return config;
  };
  const memoryMb = (fn: string) => functionOf(fn).memoryMb;
  const run = await measureOperations(write);
  const { operations } = run;
  // After the stack set the environment the data modules read at import.
  const { COMPANY_LIMITS, METER_WRITE_UNITS_PER_REQUEST, PLAN_RATE_CEILING } = await import(
    '../../functions/shared/domain/capacity'
  );
  const priced = operations.map((op) => ({ ...op, lines: priceOperation(op.usage, functionOf) }));
  const perMillion = (n: number) => usd(n * 1_000_000);

  const table = (volume: Volume, title: string) => {
    write(
      `\n== AWS cost per million operations ${title}, USD (us-east-1 on-demand list prices of ${PRICES_RECORDED_ON}; test/bench/prices.ts)\n`,
    );
    write(
      `${'operation'.padEnd(34)}${LINES.map((l) => SHORT[l].padStart(8)).join('')}${'total'.padStart(9)}  dominant\n`,
    );
    for (const op of operations) {
      const lines = priceOperation(op.usage, functionOf, volume);
      const top = dominant(lines);
      write(
        `${op.name.padEnd(34)}${LINES.map((l) => perMillion(lines[l]).padStart(8)).join('')}${perMillion(total(lines)).padStart(9)}  ${top.line} ${(100 * top.share).toFixed(0)}%\n`,
      );
    }
  };
  table('volume', 'at volume (full batches, warm caches, X-Ray 5 %)');
  table('low', 'at low volume (one request a minute: batches of one, every trace)');
  write(
    '\nmeasured, per operation (mean of its runs): API requests; Lambda invocations x mean ms by function; DynamoDB RRU / WRU on the request path (of which index, meter); state transitions; SQS requests; S3 PUT / GET; shipper and dispatcher records (RRU / WRU); log bytes (EMF)\n',
  );
  const label = (fn: string) =>
    fn
      .split('/')
      .filter((s) => !['Function', 'Worker', 'PublicApiV1', 'PublicApiV1Jobs'].includes(s))
      .pop() ?? fn;
  for (const { name, usage, indexWriteUnits, meterWriteUnits } of operations) {
    const byFn = new Map<string, number[]>();
    for (const i of usage.invocations) byFn.set(label(i.fn), [...(byFn.get(label(i.fn)) ?? []), i.ms]);
    const lambda = [...byFn]
      .map(([fn, ms]) => {
        const mean = Math.ceil(ms.reduce((a, b) => a + b, 0) / ms.length);
        return `${fn} ${(ms.length / usage.runs).toFixed(1)}x${mean} ms`;
      })
      .join(', ');
    const per = (n: number) => Number((n / usage.runs).toFixed(2));
    const offPath = (usage.offPath ?? [])
      .map((w) => `${label(w.fn)} ${per(w.records)} (${per(w.readUnits)} / ${per(w.writeUnits)})`)
      .join(', ');
    write(
      `${name.padEnd(34)} ${per(usage.apiRequests)}; ${lambda}; ${per(usage.readUnits)} / ${per(usage.writeUnits)} (${Number(indexWriteUnits.toFixed(2))}, ${Number(meterWriteUnits.toFixed(2))}); ${per(usage.stateTransitions)}; ${per(usage.sqsRequests)}${usage.sqsFifoRequests ? ` + ${per(usage.sqsFifoRequests)} FIFO` : ''}; ${per(usage.s3Puts)} / ${per(usage.s3Gets)}; ${offPath}; ${per(usage.logBytes)} (${per(usage.emfLogBytes ?? 0)})\n`,
    );
  }
  const { transactions } = run;
  write(
    `\nDynamoDB units are computed by DynamoDB's rules from the items touched (test/bench/request-units.ts) and agreed with DynamoDB Local on every request but ${transactions.count} transactions (computed ${transactions.computed} units, DynamoDB Local reported ${transactions.reported}: its known under-report) and ${run.emptyReads} reads that found nothing (a query, a batch's key; billed at DynamoDB's minimum, half a unit eventually; DynamoDB Local reports 0); ${run.reportedQueries} filtered, projected or counting queries were taken as DynamoDB Local reported them.\n`,
  );

  write(
    '\n== Floors: the cheapest design that keeps every promise (test/bench/cost-floor.ts), USD per million\n',
  );
  const floors = operations.map((op) => ({ op, floor: floorOf(op, memoryMb) }));
  for (const { op, floor } of floors) {
    if (!floor) continue;
    write(
      `${op.name}: ${floor.components.map((c) => `${c.what} ${perMillion(c.usd)}`).join(' + ')} = ${perMillion(floorTotal(floor))}\n`,
    );
  }
  write('\n== Summary, USD per million operations\n');
  write(
    '| operation | at volume $/M | low volume $/M | floor $/M | ratio | target |\n|---|---:|---:|---:|---:|---:|\n',
  );
  for (const { op, floor } of floors) {
    const atVolume = total(priceOperation(op.usage, functionOf, 'volume'));
    const low = total(priceOperation(op.usage, functionOf, 'low'));
    const floorUsd = floor ? floorTotal(floor) : undefined;
    const engine = op.engine ? ` (${op.engine})` : '';
    write(
      `| ${op.name}${engine} | ${perMillion(atVolume)} | ${perMillion(low)} | ${floorUsd === undefined ? '–' : perMillion(floorUsd)} | ${floorUsd === undefined ? '–' : `${(atVolume / floorUsd).toFixed(2)}×`} | ${floor ? `${floor.target}×` : '–'} |\n`,
    );
  }

  closingNotes(priced, functionOf, write);

  const self = priced.find((p) => p.name.startsWith('GET /v1/self'));
  const meterUnits = self ? self.usage.writeUnits / self.usage.runs : 0;
  write(
    `\nusage meter: a metered read writes ${meterUnits} units (the meter's ${METER_WRITE_UNITS_PER_REQUEST}); ` +
      `one company sustains ${COMPANY_LIMITS.usageMeter} metered requests a second on it (half its partition), ` +
      `${COMPANY_LIMITS.auditTrail} on its audit trail, ${COMPANY_LIMITS.dataWrites} Dynadata writes; a plan may sell ` +
      `${PLAN_RATE_CEILING.requestsPerSecond} req/s, burst ${PLAN_RATE_CEILING.burst} (docs/operate.md#capacity)\n`,
  );

  const cost = (prefix: string) => {
    const op = priced.find((p) => p.name.startsWith(prefix));
    if (!op) throw new Error(`no operation ${prefix}`);
    return total(op.lines);
  };
  write(`\n== One company at its plan's full monthly allowance, USD a month\n`);
  write(
    `${'plan'.padEnd(14)}${'requests'.padStart(10)}${'transcode'.padStart(11)}${'transcr.'.padStart(10)}${'speech'.padStart(9)}${'workflows'.padStart(11)}${'storage'.padStart(9)}${'total'.padStart(9)}${'price'.padStart(9)}\n`,
  );
  for (const plan of DEFAULT_PLANS) {
    const l = plan.limits;
    const figures = [
      l.apiRequestsPerMonth * cost('GET /v1/self'),
      (l.transcodeSecondsPerMonth / 60) * cost('60 s audio'),
      (l.transcriptionSecondsPerMonth / 60) * cost('60 s transcription'),
      (l.speechCharactersPerMonth / 1000) * cost('speech'),
      l.workflowRunsPerMonth * cost('workflow run, 3 steps, async'),
      (l.storageBytes / GIB) * S3_PER_GB_MONTH + (l.databaseBytes / GIB) * DYNAMODB_PER_GB_MONTH,
    ];
    const sum = figures.reduce((a, b) => a + b, 0);
    write(
      `${plan.id.padEnd(14)}${figures.map((f, i) => usd(f).padStart(i === 0 ? 10 : i === 1 ? 11 : i === 4 ? 11 : i === 2 ? 10 : 9)).join('')}${usd(sum).padStart(9)}${usd(plan.price.amount / 100).padStart(9)}\n`,
    );
  }
  write(
    `(allowances at the cost at volume of the operations above: API requests as metered reads, transcode and transcription seconds as 60 s jobs, speech in 1,000-character calls, workflow runs as 3-step async runs; storage and database bytes full all month at $${S3_PER_GB_MONTH} and $${DYNAMODB_PER_GB_MONTH} per GB-month. Lambda arm64 $${PRICES.lambdaArmPerGbSecond}/GB-s.)\n`,
  );
  if (run.disagreements.length > 0) {
    write(`\n${run.disagreements.length} requests where the computed units differ from DynamoDB Local's:\n`);
    for (const line of run.disagreements.slice(0, 30)) write(`  ${line}\n`);
    throw new Error('computed DynamoDB units differ from DynamoDB Local on non-transaction requests');
  }
};
