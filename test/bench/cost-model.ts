import { API_TRACE_SAMPLING } from '../../lib/constructs/trace-sampling';
import { PRICES } from './prices';

/**
 * What one operation consumed, as measured through the local stack, and its AWS bill. The figures come from
 * the real requests (DynamoDB units computed by DynamoDB's rules from the items touched, `request-units.ts`;
 * S3 calls at the SDK client; state transitions of the executions actually run; each Lambda invocation's
 * measured run time); media units from what the job billed. Pricing is a pure function of them and
 * `prices.ts`, in two columns:
 *
 * - **at volume**: caches warm and batches full. The log shipper (fed by the access log's subscription) and
 *   the event dispatcher (the table stream's event source) take `FULL_BATCH` records an invocation, so their
 *   invocations and their once-a-batch writes (the shipper's compute-meter writes) are shared by that many
 *   requests; X-Ray records `API_TRACE_SAMPLING.fixedRate` of the traces an API request starts (the stage's
 *   own sampling rule, `lib/constructs/trace-sampling.ts`: 1 %) and `XRAY_SAMPLED_AT_VOLUME` of the others
 *   (a stream's or a subscription's invocation, an event's delivery: the account's default rule, the first
 *   request of each second, then 5 %).
 * - **at low volume**: one request a minute. Every batch holds one record (one shipper and one dispatcher
 *   invocation per record, each with its once-a-batch writes) and X-Ray records every trace (the first of
 *   its second).
 *
 * The authorizer runs on every request in both (the API's authorizer cache TTL is 0, `lib/api-stack.ts`:
 * its measured hit rate is 0).
 */
export const FULL_BATCH = 100;
/** The account's default sampling rule at volume (traces not started by an API request). */
export const XRAY_SAMPLED_AT_VOLUME = 0.05;
export type Volume = 'volume' | 'low';

/** An off-path worker fed in batches (the log shipper, the event dispatcher), as measured. */
export interface OffPathWork {
  /** The function's construct path. */
  fn: string;
  /** Batches handled during the runs, each with its run time. */
  batchesMs: number[];
  /** Records handled (access-log records; stream records the event source's filter passes). */
  records: number;
  readUnits: number;
  writeUnits: number;
  /** Of `writeUnits`, those written once a batch whatever its size (the compute meter's month and day). */
  perBatchWriteUnits: number;
}
export interface Invocation {
  /** The function's construct path (its memory is read from the synthesized stacks). */
  fn: string;
  ms: number;
  /** The part of an invocation this is (a share of a full batch); 1 when absent. */
  share?: number;
  /** An x86_64 function (the ffmpeg one), billed at x86's price per GB-second; arm64 when absent. */
  x86?: boolean;
}

export interface OperationUsage {
  /** How many times the operation ran to give these figures (the bill is per run). */
  runs: number;
  apiRequests: number;
  invocations: Invocation[];
  readUnits: number;
  writeUnits: number;
  /** State transitions of Standard executions. */
  stateTransitions: number;
  /** Express executions: their number and their durations (ms), billed at 64 MB per 100 ms started. */
  expressExecutionsMs: number[];
  /** SQS requests of standard queues: messages sent, and the event source's receives and deletes. */
  sqsRequests: number;
  /** The same of FIFO queues (`webhook-delivery`), with the workers' visibility changes; priced apart. */
  sqsFifoRequests?: number;
  s3Puts: number;
  s3Gets: number;
  pollyCharacters: number;
  /** Polly calls or tasks that read `pollyCharacters` between them (one a run when absent). */
  pollyTasks?: number;
  transcribeSeconds: number;
  mediaConvertSeconds: number;
  logBytes: number;
  /** Of `logBytes`, the embedded-metric-format lines. */
  emfLogBytes?: number;
  /** The log shipper and the event dispatcher. */
  offPath?: OffPathWork[];
  /** Traces started by requests from outside (executions and queue messages carry a trace on). */
  traces?: number;
  kmsRequests?: number;
}

export const LINES = [
  'WAF',
  'API Gateway',
  'Lambda requests',
  'Lambda GB-s',
  'DynamoDB writes',
  'DynamoDB reads',
  'Step Functions',
  'SQS requests',
  'S3 requests',
  'Polly',
  'Transcribe',
  'MediaConvert',
  'CloudWatch Logs',
  'X-Ray',
  'KMS',
] as const;
export type CostLine = (typeof LINES)[number];

/** An operation that consumed nothing, once (a base for partial figures). */
export const ZERO_USAGE: OperationUsage = {
  runs: 1,
  apiRequests: 0,
  invocations: [],
  readUnits: 0,
  writeUnits: 0,
  stateTransitions: 0,
  expressExecutionsMs: [],
  sqsRequests: 0,
  s3Puts: 0,
  s3Gets: 0,
  pollyCharacters: 0,
  transcribeSeconds: 0,
  mediaConvertSeconds: 0,
  logBytes: 0,
};

export interface MeasuredOperation {
  name: string;
  usage: OperationUsage;
  /** Of the request path's write units per run, the index writes and the usage meter's (for the report). */
  indexWriteUnits: number;
  meterWriteUnits: number;
  /** The engine that ran a media job, where the job tells. */
  engine?: string;
}

/** What the bill needs of a function, as the synthesized stacks configure it (`function-config.ts`). */
export interface FunctionConfig {
  memoryMb: number;
  /** Lambda's system log level (`LoggingConfig.SystemLogLevel`); absent when the function sets none (INFO). */
  systemLogLevel?: string;
}

/** Lambda's platform lines per invocation (START, END, REPORT), in bytes, beside the function's own. */
export const PLATFORM_LOG_BYTES = 360;

/**
 * The platform bytes an invocation of a function writes: Lambda sends START, END and REPORT at system log level
 * INFO (its default, also when none is set) and DEBUG; at WARN, what every function of the stacks sets unless
 * the `lambdaSystemLogLevel` context says otherwise (`lib/constructs/app-function.ts`), it sends none.
 */
export const platformLogBytes = (config: FunctionConfig): number =>
  config.systemLogLevel === undefined || ['INFO', 'DEBUG'].includes(config.systemLogLevel)
    ? PLATFORM_LOG_BYTES
    : 0;

const perMillion = (count: number, price: number) => (count * price) / 1_000_000;

/** The invocations and DynamoDB units of the off-path work at one volume (see the module's note). */
export const offPathAt = (work: OffPathWork, volume: Volume) => {
  const batches = work.batchesMs.length;
  if (work.records === 0 || batches === 0)
    return { invocations: [] as Invocation[], readUnits: 0, writeUnits: 0 };
  const perRecordWrites = (work.writeUnits - work.perBatchWriteUnits) / work.records;
  const perBatchWrites = work.perBatchWriteUnits / batches;
  const msPerRecord = work.batchesMs.reduce((a, b) => a + b, 0) / work.records;
  const meanBatchMs = work.batchesMs.reduce((a, b) => a + b, 0) / batches;
  const invocations = volume === 'low' ? work.records : work.records / FULL_BATCH;
  return {
    // At volume a full batch's run time is the records' (per record, measured); alone, a measured batch's.
    invocations: Array.from({ length: Math.ceil(invocations) }, (_, i) => ({
      fn: work.fn,
      ms: (volume === 'low' ? meanBatchMs : msPerRecord * FULL_BATCH) * Math.min(1, invocations - i),
      share: Math.min(1, invocations - i),
    })),
    readUnits: volume === 'low' ? (work.readUnits / batches) * work.records : work.readUnits,
    writeUnits: work.records * perRecordWrites + invocations * perBatchWrites,
  };
};

/** The bill of one operation, by line, in USD, at volume (default) or at low volume. */
export const priceOperation = (
  usage: OperationUsage,
  functionOf: (fn: string) => FunctionConfig,
  volume: Volume = 'volume',
): Record<CostLine, number> => {
  const offPath = (usage.offPath ?? []).map((work) => offPathAt(work, volume));
  const invocations: (Invocation & { share?: number })[] = [
    ...usage.invocations,
    ...offPath.flatMap((o) => o.invocations),
  ];
  const requests = invocations.reduce((sum, i) => sum + (i.share ?? 1), 0);
  const gbSecondsOf = (x86: boolean) =>
    invocations
      .filter((i) => (i.x86 ?? false) === x86)
      .reduce(
        (sum, i) => sum + (functionOf(i.fn).memoryMb / 1024) * (Math.max(1, Math.ceil(i.ms)) / 1000),
        0,
      );
  const logBytes =
    usage.logBytes +
    invocations.reduce((sum, i) => sum + (i.share ?? 1) * platformLogBytes(functionOf(i.fn)), 0);
  const writeUnits = usage.writeUnits + offPath.reduce((sum, o) => sum + o.writeUnits, 0);
  const readUnits = usage.readUnits + offPath.reduce((sum, o) => sum + o.readUnits, 0);
  // Each off-path invocation (a stream or log subscription starts no trace of a request) is a trace.
  const offPathTraces = offPath.reduce(
    (sum, o) => sum + o.invocations.reduce((n, i) => n + (i.share ?? 1), 0),
    0,
  );
  const atVolume = (rate: number) => (volume === 'low' ? 1 : rate);
  const sampled =
    (usage.traces ?? 0) *
      atVolume(usage.apiRequests > 0 ? API_TRACE_SAMPLING.fixedRate : XRAY_SAMPLED_AT_VOLUME) +
    (usage.traces === undefined ? 0 : offPathTraces) * atVolume(XRAY_SAMPLED_AT_VOLUME);
  const lines: Record<CostLine, number> = {
    WAF: perMillion(usage.apiRequests, PRICES.wafPerMillionRequests),
    'API Gateway': perMillion(usage.apiRequests, PRICES.apiGatewayRestPerMillionRequests),
    'Lambda requests': perMillion(requests, PRICES.lambdaPerMillionRequests),
    'Lambda GB-s':
      gbSecondsOf(false) * PRICES.lambdaArmPerGbSecond + gbSecondsOf(true) * PRICES.lambdaX86PerGbSecond,
    'DynamoDB writes': perMillion(writeUnits, PRICES.dynamodbPerMillionWriteUnits),
    'DynamoDB reads': perMillion(readUnits, PRICES.dynamodbPerMillionReadUnits),
    'Step Functions':
      (usage.stateTransitions * PRICES.stepFunctionsPerThousandTransitions) / 1000 +
      perMillion(usage.expressExecutionsMs.length, PRICES.stepFunctionsExpressPerMillionRequests) +
      usage.expressExecutionsMs.reduce(
        (sum, ms) => sum + (64 / 1024) * (Math.max(1, Math.ceil(ms / 100)) / 10),
        0,
      ) *
        PRICES.stepFunctionsExpressPerGbSecond,
    'SQS requests':
      perMillion(usage.sqsRequests, PRICES.sqsStandardPerMillionRequests) +
      perMillion(usage.sqsFifoRequests ?? 0, PRICES.sqsFifoPerMillionRequests),
    'S3 requests': (usage.s3Puts * PRICES.s3PerThousandPuts + usage.s3Gets * PRICES.s3PerThousandGets) / 1000,
    Polly: perMillion(usage.pollyCharacters, PRICES.pollyStandardPerMillionCharacters),
    Transcribe:
      usage.transcribeSeconds > 0
        ? (Math.max(15, usage.transcribeSeconds) / 60) * PRICES.transcribePerMinute
        : 0,
    MediaConvert:
      usage.mediaConvertSeconds > 0
        ? (Math.max(10, usage.mediaConvertSeconds) / 60) * PRICES.mediaConvertBasicPerMinute
        : 0,
    'CloudWatch Logs': (logBytes / 1024 ** 3) * PRICES.cloudWatchLogsPerGbIngested,
    'X-Ray': perMillion(sampled, PRICES.xrayPerMillionTracesRecorded + PRICES.xrayPerMillionTracesRetrieved),
    KMS: perMillion(usage.kmsRequests ?? 0, PRICES.kmsPerMillionRequests),
  };
  return Object.fromEntries(LINES.map((line) => [line, lines[line] / usage.runs])) as Record<
    CostLine,
    number
  >;
};

export const total = (lines: Record<CostLine, number>) => LINES.reduce((sum, line) => sum + lines[line], 0);

/** The line that costs most, and its share of the total. */
export const dominant = (lines: Record<CostLine, number>): { line: CostLine; share: number } => {
  const sum = total(lines);
  const line = LINES.reduce((best, l) => (lines[l] > lines[best] ? l : best), LINES[0]);
  return { line, share: sum > 0 ? lines[line] / sum : 0 };
};
