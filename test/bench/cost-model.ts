import { PRICES } from './prices';

/**
 * What one operation consumed, as measured through the local stack, and its AWS bill. The figures come from
 * the real requests (DynamoDB units as DynamoDB Local reports them, S3 calls at the SDK client, state
 * transitions of the executions actually run, each Lambda invocation's measured run time); media units from
 * what the job billed. Pricing is a pure function of them and `prices.ts`.
 */
export interface Invocation {
  /** The function's construct path (its memory is read from the synthesized stacks). */
  fn: string;
  ms: number;
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
  /** SQS requests: messages sent, and the event source's receives and deletes. */
  sqsRequests: number;
  s3Puts: number;
  s3Gets: number;
  pollyCharacters: number;
  transcribeSeconds: number;
  mediaConvertSeconds: number;
  logBytes: number;
}

export const LINES = [
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
] as const;
export type CostLine = (typeof LINES)[number];

/** Lambda's platform lines per invocation (START, END, REPORT), in bytes, beside the function's own. */
export const PLATFORM_LOG_BYTES = 360;

const perMillion = (count: number, price: number) => (count * price) / 1_000_000;

/** The bill of one operation, by line, in USD. */
export const priceOperation = (
  usage: OperationUsage,
  memoryMb: (fn: string) => number,
): Record<CostLine, number> => {
  const gbSeconds = usage.invocations.reduce(
    (sum, i) => sum + (memoryMb(i.fn) / 1024) * (Math.max(1, Math.ceil(i.ms)) / 1000),
    0,
  );
  const logBytes = usage.logBytes + usage.invocations.length * PLATFORM_LOG_BYTES;
  const lines: Record<CostLine, number> = {
    'API Gateway': perMillion(usage.apiRequests, PRICES.apiGatewayRestPerMillionRequests),
    'Lambda requests': perMillion(usage.invocations.length, PRICES.lambdaPerMillionRequests),
    'Lambda GB-s': gbSeconds * PRICES.lambdaArmPerGbSecond,
    'DynamoDB writes': perMillion(usage.writeUnits, PRICES.dynamodbPerMillionWriteUnits),
    'DynamoDB reads': perMillion(usage.readUnits, PRICES.dynamodbPerMillionReadUnits),
    'Step Functions':
      (usage.stateTransitions * PRICES.stepFunctionsPerThousandTransitions) / 1000 +
      perMillion(usage.expressExecutionsMs.length, PRICES.stepFunctionsExpressPerMillionRequests) +
      usage.expressExecutionsMs.reduce(
        (sum, ms) => sum + (64 / 1024) * (Math.max(1, Math.ceil(ms / 100)) / 10),
        0,
      ) *
        PRICES.stepFunctionsExpressPerGbSecond,
    'SQS requests': perMillion(usage.sqsRequests, PRICES.sqsStandardPerMillionRequests),
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
