import { FULL_BATCH, type MeasuredOperation, PLATFORM_LOG_BYTES } from './cost-model';
import { PRICES } from './prices';

/**
 * The floor of each operation: the cheapest design that keeps every promise the operation makes, priced from
 * the same `prices.ts`, each component named. For an API operation: the REST API (API Gateway), WAF on
 * every request, one Lambda invocation (the route's, for the time it measurably ran) behind an authorizer
 * whose result is cached (no invocation at volume), per-request metering as one write, an audit trail entry
 * as one write, and the access-log line; plus what the operation itself must read or write (items kept under
 * 1 KB, index entries narrow). Work done later adds what it must: an SQS message (send, receive, delete), one
 * worker invocation, one status write. A media job's floor is its engine's own price (MediaConvert,
 * Transcribe, one Polly task over the text), the target being 1.5 times it.
 */
export interface FloorComponent {
  what: string;
  usd: number;
}
export interface Floor {
  components: FloorComponent[];
  target: number;
}

const perMillion = (count: number, price: number) => (count * price) / 1_000_000;
const write = (units: number, what: string): FloorComponent => ({
  what: `${what} (${units} WRU)`,
  usd: perMillion(units, PRICES.dynamodbPerMillionWriteUnits),
});
const lambda = (what: string, gb: number, ms: number): FloorComponent[] => [
  { what: `${what}: 1 request`, usd: perMillion(1, PRICES.lambdaPerMillionRequests) },
  {
    what: `${what}: ${Math.ceil(ms)} ms at ${Math.round(gb * 1024)} MB`,
    usd: gb * (Math.max(1, Math.ceil(ms)) / 1000) * PRICES.lambdaArmPerGbSecond,
  },
];
/** One access-log line and a function's platform lines, in bytes. */
const ACCESS_LOG_LINE_BYTES = 400;
const logs = (bytes: number): FloorComponent => ({
  what: `${bytes} bytes of logs`,
  usd: (bytes / 1024 ** 3) * PRICES.cloudWatchLogsPerGbIngested,
});
/** A worker that only moves a message on (a delivery's POST, a status write): 50 ms at 128 MB. */
const WORKER_MS = 50;
const WORKER_GB = 128 / 1024;
/** A contact as Dynadata stores it (one name, its keys, times and version), in bytes. */
const CONTACT_ITEM_BYTES = 250;

const meanMs = (op: MeasuredOperation, match: (fn: string) => boolean) => {
  const runs = op.usage.invocations.filter((i) => match(i.fn));
  return runs.length === 0 ? 0 : runs.reduce((sum, i) => sum + i.ms, 0) / op.usage.runs;
};

const apiRequest = (op: MeasuredOperation, memoryMb: (fn: string) => number): FloorComponent[] => {
  const group = op.usage.invocations.find((i) => i.fn.includes('/Group-'))?.fn;
  return [
    { what: 'API Gateway REST request', usd: perMillion(1, PRICES.apiGatewayRestPerMillionRequests) },
    { what: 'WAF request', usd: perMillion(1, PRICES.wafPerMillionRequests) },
    ...lambda(
      "the route's function",
      group ? memoryMb(group) / 1024 : WORKER_GB,
      group ? meanMs(op, (fn) => fn === group) : 1,
    ),
    { what: 'authorizer result cached', usd: 0 },
    write(1, 'usage meter'),
    write(1, 'audit trail entry'),
    logs(ACCESS_LOG_LINE_BYTES + PLATFORM_LOG_BYTES),
  ];
};

const laterWork = (what: string, gb = WORKER_GB, ms = WORKER_MS): FloorComponent[] => [
  { what: 'SQS send, receive, delete', usd: perMillion(3, PRICES.sqsStandardPerMillionRequests) },
  ...lambda(what, gb, ms),
  write(1, 'status'),
  logs(PLATFORM_LOG_BYTES),
];

const readOf = (items: number, bytes: number): FloorComponent => {
  const units = Math.ceil((items * bytes) / 4096) * 0.5;
  return {
    what: `${items} items of ${bytes} B read eventually (${units} RRU)`,
    usd: perMillion(units, PRICES.dynamodbPerMillionReadUnits),
  };
};

/** The floor of a measured operation (by its name), or undefined where none is defined. */
export const floorOf = (op: MeasuredOperation, memoryMb: (fn: string) => number): Floor | undefined => {
  const { name, usage } = op;
  const api = () => apiRequest(op, memoryMb);
  if (name.startsWith('GET /v1/self')) return { components: api(), target: 1.3 };
  if (name.startsWith('Dynadata create'))
    return {
      components: [...api(), write(1, 'the item'), write(1, 'its keys-only list index entry')],
      target: 1.3,
    };
  const list = /page of (\d+)/.exec(name);
  if (list) return { components: [...api(), readOf(Number(list[1]), CONTACT_ITEM_BYTES)], target: 1.3 };
  if (name.startsWith('message sent'))
    return { components: [...api(), write(1, 'the message'), ...laterWork('delivery worker')], target: 2 };
  if (name.startsWith('webhook delivery'))
    return {
      components: [
        ...lambda(`dispatcher, a ${FULL_BATCH}th of a batch`, WORKER_GB, 1).map((c) => ({
          ...c,
          usd: c.usd / FULL_BATCH,
        })),
        ...laterWork('delivery worker'),
      ],
      target: 2,
    };
  if (name.startsWith('workflow run') && name.endsWith(', sync'))
    return { components: [...api(), write(1, 'the finished run')], target: 2 };
  if (name.startsWith('workflow run') && name.endsWith(', async')) {
    const worker = usage.invocations.find((i) => i.fn.includes('WorkflowRuns'))?.fn;
    const ms = meanMs(op, (fn) => fn === worker);
    return {
      components: [
        ...api(),
        write(1, 'the run, queued'),
        ...laterWork('the run worker', worker ? memoryMb(worker) / 1024 : WORKER_GB, ms),
      ],
      target: 2,
    };
  }
  const perRun = (n: number) => n / usage.runs;
  const ffmpeg = usage.invocations.filter((i) => i.x86);
  if (ffmpeg.length > 0) {
    // The engine is the ffmpeg function itself: its invocations at x86's price (decision 0039).
    const ms = ffmpeg.reduce((sum, i) => sum + i.ms, 0) / usage.runs;
    const gb = memoryMb(ffmpeg[0]?.fn ?? '') / 1024;
    return {
      components: [
        { what: 'ffmpeg function: 1 request', usd: perMillion(1, PRICES.lambdaPerMillionRequests) },
        {
          what: `ffmpeg function: ${Math.ceil(ms)} ms at ${Math.round(gb * 1024)} MB (x86)`,
          usd: gb * (Math.max(1, Math.ceil(ms)) / 1000) * PRICES.lambdaX86PerGbSecond,
        },
      ],
      target: 1.5,
    };
  }
  if (usage.mediaConvertSeconds > 0)
    return {
      components: [
        {
          what: `MediaConvert, ${perRun(usage.mediaConvertSeconds)} s`,
          usd: (Math.max(10, perRun(usage.mediaConvertSeconds)) / 60) * PRICES.mediaConvertBasicPerMinute,
        },
      ],
      target: 1.5,
    };
  if (usage.transcribeSeconds > 0)
    return {
      components: [
        {
          what: `Transcribe, ${perRun(usage.transcribeSeconds)} s`,
          usd: (Math.max(15, perRun(usage.transcribeSeconds)) / 60) * PRICES.transcribePerMinute,
        },
      ],
      target: 1.5,
    };
  if (usage.pollyCharacters > 0) {
    // One Polly task over the text: a speech job with timings runs two, each counting the characters.
    const characters = usage.pollyCharacters / Math.max(1, usage.pollyTasks ?? usage.runs);
    return {
      components: [
        {
          what: `Polly, one task of ${characters} characters`,
          usd: perMillion(characters, PRICES.pollyStandardPerMillionCharacters),
        },
      ],
      target: 1.5,
    };
  }
  return undefined;
};

export const floorTotal = (floor: Floor) => floor.components.reduce((sum, c) => sum + c.usd, 0);
