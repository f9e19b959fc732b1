import { FULL_BATCH, type MeasuredOperation } from './cost-model';
import { PRICES } from './prices';

/**
 * The floor of each operation: the cheapest design that keeps every promise the operation makes, priced from
 * the same `prices.ts`, each component named by the promise it keeps. For an API operation: the REST API (API
 * Gateway), WAF on every request, one Lambda invocation (the route's, for the time it measurably ran) behind
 * an authorizer whose result is cached (no invocation at volume), per-request metering as one write, an audit
 * trail entry as one write, and the access-log line; plus one write (items kept under 1 KB, outside any
 * transaction) for each other promise the operation makes: its record, an entry in each list it appears in,
 * its change event (written once), an exact allowance (a conditional counter), each step recorded once; and a
 * figure that is only summed for usage reports (a type's bytes, a run's compute time) as a share of one write
 * per batch of the stream (`FULL_BATCH`). Work done later adds what it must: an SQS message (send, receive,
 * delete; FIFO where order per resource is promised), one worker invocation, one status write. A media job's
 * floor is its engine's own price plus the request that starts it, its record, queue place, status, usage and
 * event writes, the output file's record and its S3 PUT, and one GET of the source. Decision 0056 lists the
 * promises and where the documentation makes each.
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
/**
 * One access-log line, in bytes. No function's platform lines (START, END, REPORT): a function needs none to
 * keep a promise, and the stacks send none (system log level WARN, decision 0062).
 */
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
    logs(ACCESS_LOG_LINE_BYTES),
  ];
};

const laterWork = (what: string, gb = WORKER_GB, ms = WORKER_MS): FloorComponent[] => [
  { what: 'SQS send, receive, delete', usd: perMillion(3, PRICES.sqsStandardPerMillionRequests) },
  ...lambda(what, gb, ms),
  write(1, 'status'),
];

const readOf = (items: number, bytes: number): FloorComponent => {
  const units = Math.ceil((items * bytes) / 4096) * 0.5;
  return {
    what: `${items} items of ${bytes} B read eventually (${units} RRU)`,
    usd: perMillion(units, PRICES.dynamodbPerMillionReadUnits),
  };
};

/** A write that keeps one of the operation's promises (one unit: an item under 1 KB, no transaction). */
const promise = (what: string) => write(1, what);
/** A figure only summed for reports, added off the request path once per batch of the stream. */
const summedPerBatch = (what: string): FloorComponent => ({
  what: `${what}, once per batch of ${FULL_BATCH} (${1 / FULL_BATCH} WRU)`,
  usd: perMillion(1 / FULL_BATCH, PRICES.dynamodbPerMillionWriteUnits),
});
/** The bench's custom type declares one indexed field (`cost-operations.ts`): its items have an index entry. */
const INDEXED_TYPE = 'custom type';

/**
 * What a media job promises besides its engine's work: the request that starts it, the job's record, its place
 * in the company's bounded queue, its final status, its usage meter, its event, the output file's record (listed,
 * counted in `storageBytes`) and the output's S3 PUT, and one GET of the source (none for synthesis).
 */
const mediaJob = (op: MeasuredOperation, memoryMb: (fn: string) => number, readsSource: boolean) => [
  ...apiRequest(op, memoryMb),
  promise('the job record'),
  promise("its place in the company's bounded queue"),
  promise('its final status'),
  promise('its usage meter (exact allowance)'),
  promise('its event'),
  promise("the output file's record"),
  { what: "the output's S3 PUT", usd: PRICES.s3PerThousandPuts / 1000 },
  ...(readsSource ? [{ what: 'one S3 GET of the source', usd: PRICES.s3PerThousandGets / 1000 }] : []),
];

/** The floor of a measured operation (by its name), or undefined where none is defined. */
export const floorOf = (op: MeasuredOperation, memoryMb: (fn: string) => number): Floor | undefined => {
  const { name, usage } = op;
  const api = () => apiRequest(op, memoryMb);
  if (name.startsWith('GET /v1/self')) return { components: api(), target: 1.3 };
  if (name.startsWith('Dynadata create'))
    return {
      components: [
        ...api(),
        promise('the item'),
        ...(name.includes(INDEXED_TYPE) ? [promise("its indexed field's entry")] : []),
        promise('its change event'),
        summedPerBatch("its type's bytes for databaseBytes"),
      ],
      target: 1.3,
    };
  const list = /page of (\d+)/.exec(name);
  if (list) return { components: [...api(), readOf(Number(list[1]), CONTACT_ITEM_BYTES)], target: 1.3 };
  if (name.startsWith('message sent'))
    return {
      components: [
        ...api(),
        promise('the message'),
        promise("its entry on the contact's thread"),
        ...laterWork('delivery worker'),
        promise('its message.delivered event'),
        summedPerBatch("the messages type's bytes for databaseBytes"),
      ],
      target: 2,
    };
  if (name.startsWith('webhook delivery'))
    return {
      components: [
        ...lambda(`dispatcher, a ${FULL_BATCH}th of a batch`, WORKER_GB, 1).map((c) => ({
          ...c,
          usd: c.usd / FULL_BATCH,
        })),
        ...laterWork('delivery worker').map((c) =>
          c.what.startsWith('SQS')
            ? {
                what: 'SQS FIFO send, receive, delete (order per resource)',
                usd: perMillion(3, PRICES.sqsFifoPerMillionRequests),
              }
            : c,
        ),
      ],
      target: 2,
    };
  const steps = Number(/(\d+) steps/.exec(name)?.[1] ?? 0);
  const runPromises = [
    promise('the run counted against workflowRunsPerMonth (exact allowance)'),
    promise("its entry in the workflow's run list"),
    promise('its workflow_run.finished event'),
    summedPerBatch('its compute time for usage'),
  ];
  if (name.startsWith('workflow run') && name.endsWith(', sync'))
    return {
      components: [
        ...api(),
        // A sync run cut off by a crash is settled `failed` (README, "Restarts and crashes"): it is on record
        // from its start.
        promise('the run, recorded when it starts'),
        promise('the finished run'),
        ...runPromises,
      ],
      target: 2,
    };
  if (name.startsWith('workflow run') && name.endsWith(', async')) {
    const worker = usage.invocations.find((i) => i.fn.includes('WorkflowRuns'))?.fn;
    const ms = meanMs(op, (fn) => fn === worker);
    return {
      components: [
        ...api(),
        write(1, 'the run, queued'),
        ...runPromises,
        write(steps, `each of its ${steps} steps started once (a claim, or the record of the step before)`),
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
        ...mediaJob(op, memoryMb, true),
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
        ...mediaJob(op, memoryMb, true),
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
        ...mediaJob(op, memoryMb, true),
      ],
      target: 1.5,
    };
  if (usage.pollyCharacters > 0) {
    // One Polly task over the text: a speech job with timings runs two, each counting the characters.
    const characters = usage.pollyCharacters / Math.max(1, usage.pollyTasks ?? usage.runs);
    const polly = {
      what: `Polly, one task of ${characters} characters`,
      usd: perMillion(characters, PRICES.pollyStandardPerMillionCharacters),
    };
    // `POST /v1/speech` answers at once: no job record, queue or event, only the file and the usage.
    const synchronous = name.startsWith('speech,');
    return {
      components: synchronous
        ? [
            polly,
            ...api(),
            promise('its usage meter (exact allowance)'),
            promise("the output file's record"),
            { what: "the output's S3 PUT", usd: PRICES.s3PerThousandPuts / 1000 },
          ]
        : [polly, ...mediaJob(op, memoryMb, false)],
      target: 1.5,
    };
  }
  return undefined;
};

export const floorTotal = (floor: Floor) => floor.components.reduce((sum, c) => sum + c.usd, 0);
