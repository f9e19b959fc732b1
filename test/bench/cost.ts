import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueBatchEvent } from '../../functions/local/queues';
import type { ExecutionEvent } from '../../functions/local/step-functions/emulator';
import { USAGE_MONTH_SORT_KEY_PREFIX } from '../../functions/shared/data/keys';
import type { AccessLogRecord } from '../../functions/shared/http/access-log';
import { DELETING_STATUS, TYPE_ENTITY } from '../../functions/shared/types/dynadata-types';
import { EVENT_ENTITY } from '../../functions/shared/types/events';
import { EXPRESS_STATE_MACHINES } from '../../functions/shared/types/state-machines';
import type { MeasuredOperation, OffPathWork, OperationUsage } from './cost-model';
import { measureCostOperations } from './cost-operations';
import { difference, type MeterTotals, markTrace, type RequestMeter, type Work } from './request-meter';

/**
 * Measures, through a local stack of its own, what each operation of the cost bench consumes
 * (`cost-model.ts` prices it): API requests and each Lambda invocation's run time from the gateway's access
 * log (the group function's integration time; the authorizer's, the rest of the request's latency), the
 * Task states' run times and state transitions of the executions the operation started, the queue workers'
 * batches (each a Lambda invocation, one receive and one delete request) and the messages sent (at the SQS
 * client), DynamoDB units computed by DynamoDB's rules at the SDK client (`request-meter.ts`), S3 calls at
 * the SDK client, the log bytes written (the functions' lines, EMF metric lines apart, and the access log),
 * and the off-path batches: the log shipper (run, as on AWS, on the access log) and the event dispatcher
 * (each batch's run time, records and units; the dispatcher's records are those the deployed event source's
 * filter passes). An operation is done when its asynchronous work is (job `done`, delivery received), plus a
 * settling pause for the shipper and the dispatcher; the same pause before it keeps earlier work out.
 */
const SETTLE_MS = 1500;

/** The Lambda function of each Task state that runs one (by machine), as construct paths of the stacks. */
const WORKER_OF_MACHINE: Record<string, string> = {
  transcode: 'PublicApiV1Jobs/Transcodes/Worker',
  'transcode-audio': 'PublicApiV1Jobs/Transcodes/Worker',
  transcription: 'PublicApiV1Jobs/Transcriptions/Worker',
  'message-delivery': 'PublicApiV1Jobs/MessageDelivery/Worker',
  'speech-job': 'PublicApiV1Jobs/SpeechJobs/Worker',
};
/** Task states run by a function of their own rather than the machine's worker (`lib/constructs/*-jobs.ts`). */
const FUNCTION_OF_STATE: Record<string, { fn: string; x86?: boolean }> = {
  // Audio-only transcodes: ffmpeg in an x86_64 function with the ffmpeg layer (decision 0039).
  TranscodeAudio: { fn: 'PublicApiV1Jobs/Transcodes/AudioFunction', x86: true },
  ConvertAudio: { fn: 'PublicApiV1Jobs/Transcodes/AudioFunction', x86: true },
};
/** Machines deployed as Express (`EXPRESS_STATE_MACHINES`): billed by request and duration. */
const EXPRESS_MACHINES = new Set<string>(EXPRESS_STATE_MACHINES);
/** The FIFO queues, whose requests are priced at the FIFO rate (`lib/constructs/webhook-events.ts`). */
const FIFO_QUEUES = new Set(['webhook-delivery']);
/** The Lambda function each local queue's event source invokes. */
const WORKER_OF_QUEUE: Record<string, string> = {
  'webhook-delivery': 'PublicApiV1Jobs/WebhookEvents/Worker',
  'workflow-run': 'PublicApiV1Jobs/WorkflowRuns/Worker',
};
/** Task states that are service integrations (billed by that service), not Lambda invocations. */
const INTEGRATION_STATES = new Set([
  'Transcode',
  'Handoff',
  'StartTranscription',
  'StartTranscriptionIdentifyingLanguage',
  'CheckTranscription',
  'StartAudioSynthesis',
  'StartMarksSynthesis',
  'CheckAudioSynthesis',
  'CheckMarksSynthesis',
]);

const machineOf = (execution: ExecutionEvent) => execution.executionArn.split(':')[6] ?? '';

const SHIPPER_FN = 'PublicApiV1/LogShipperFunction';
const DISPATCHER_FN = 'PublicApiV1Jobs/WebhookEvents/Dispatcher';

export interface CostRun {
  operations: MeasuredOperation[];
  /** Transactions over the whole run: DynamoDB Local's units against the computed ones. */
  transactions: MeterTotals['transactions'];
  /** Queries whose units were taken as DynamoDB Local reported them (filtered, projected or counted). */
  reportedQueries: number;
  /** Reads that found nothing (billed at DynamoDB's minimum; DynamoDB Local reports 0). */
  emptyReads: number;
  /** Differences from DynamoDB Local on non-transaction requests (there must be none). */
  disagreements: string[];
}

type StreamRecord = {
  eventName?: string;
  dynamodb?: {
    Keys?: Record<string, { S?: string }>;
    NewImage?: Record<string, { S?: string }>;
  };
};
/** The deployed event source's filter (`lib/constructs/webhook-events.ts`): the records that invoke it. */
const dispatched = (record: StreamRecord) => {
  const image = record.dynamodb?.NewImage;
  if (record.eventName === 'INSERT') return image?.entity?.S === EVENT_ENTITY;
  if (record.eventName !== 'MODIFY') return false;
  return (
    (record.dynamodb?.Keys?.sk?.S ?? '').startsWith(USAGE_MONTH_SORT_KEY_PREFIX) ||
    (image?.entity?.S === TYPE_ENTITY && image?.status?.S === DELETING_STATUS)
  );
};

export const measureOperations = async (write: (line: string) => void): Promise<CostRun> => {
  const { startLocalStack } = await import('../../functions/local/stack');
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-cost-'));
  const accessLog: AccessLogRecord[] = [];
  const executions: ExecutionEvent[] = [];
  const batches: QueueBatchEvent[] = [];
  const offPath: Record<Exclude<Work, 'request' | 'setup'>, { ms: number; records: number }[]> = {
    'log-shipper': [],
    'event-dispatcher': [],
  };
  let meter: RequestMeter | undefined;
  const stack = await startLocalStack({
    dataDir,
    shipLogs: true,
    emfMetrics: true,
    aroundBatch: async (kind, records, run) => {
      const started = performance.now();
      try {
        return await (meter ? meter.within(kind, run) : run());
      } finally {
        const counted =
          kind === 'log-shipper' ? records.length : (records as StreamRecord[]).filter(dispatched).length;
        if (counted > 0) offPath[kind].push({ ms: performance.now() - started, records: counted });
      }
    },
    allowLoopbackOutbound: true,
    onAccessLog: (record) => accessLog.push(record),
    onExecutionEnd: (event) => executions.push(event),
    onQueueBatch: (event) => batches.push(event),
  });
  try {
    const { dynamodbClient } = await import('../../functions/shared/data/client');
    const { installRequestMeter } = await import('./request-meter');
    const { env } = await import('../../functions/shared/env');
    meter = installRequestMeter(dynamodbClient, {
      endpoint: String(env().dynamodbEndpoint),
      region: env().region,
    });
    const units = meter;
    const { s3 } = await import('../../functions/shared/aws/s3');
    const s3Calls = { puts: 0, gets: 0 };
    s3().middlewareStack.add(
      (next, context) => async (args) => {
        if (/^(Get|Head)/.test(context.commandName ?? '')) s3Calls.gets += 1;
        else s3Calls.puts += 1;
        return next(args);
      },
      { step: 'initialize', name: 'costS3Counter' },
    );
    const { sqs } = await import('../../functions/shared/aws/queues');
    let sqsSends = 0;
    let fifoSends = 0;
    let runMessagesSent = 0;
    sqs.middlewareStack.add(
      (next) => async (args) => {
        // Every request the functions make (sends, visibility changes), FIFO queues' apart (priced apart).
        if (
          FIFO_QUEUES.has(
            String((args.input as { QueueUrl?: unknown }).QueueUrl)
              .split('/')
              .pop() ?? '',
          )
        )
          fifoSends += 1;
        else sqsSends += 1;
        if (String((args.input as { QueueUrl?: unknown }).QueueUrl).endsWith('/workflow-run'))
          runMessagesSent += 1;
        return next(args);
      },
      { step: 'initialize', name: 'costSqsCounter' },
    );
    // Log lines the functions write (Powertools JSON on stdout), counted by bytes.
    let logBytes = 0;
    let emfBytes = 0;
    const stdoutWrite = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      if (text.startsWith('{"')) {
        logBytes += Buffer.byteLength(text);
        if (text.includes('"_aws":')) emfBytes += Buffer.byteLength(text);
        return true;
      }
      return stdoutWrite(chunk, ...rest);
    }) as typeof process.stdout.write;

    const { ROUTES } = await import('../../functions/shared/routes/route-table');
    const groupOf = (method: string, route: string | null) =>
      ROUTES.find((r) => r.method === method && (r.path === route || r.path === `/v1${route}`))?.group;

    const { createCompanyWithPlan } = await import('../../functions/shared/domain/company-admin');
    const { createApiKey } = await import('../../functions/shared/data/api-keys');
    const { SCOPES } = await import('../../functions/shared/types/scopes');
    const { setCompanyLimitOverrides } = await import('../integration/storage-support');
    const company = await createCompanyWithPlan({ name: 'Cost bench', planId: 'legacy-pro' }, new Date());
    const { companyId } = company;
    await setCompanyLimitOverrides(companyId, { requestsPerSecond: 1000, burst: 1000 });
    const apiKey = (await createApiKey(companyId, { name: 'cost', scopes: [...SCOPES] }, new Date())).key;
    const api = stack.description.apiUrl;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: {
          'x-api-key': apiKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    // How long background work may take (`BENCH_WAIT_SECONDS`, 360 by default): on a loaded machine a
    // transcription alone can take minutes.
    const waitMs = Number(process.env.BENCH_WAIT_SECONDS ?? 360) * 1000;
    const until = async (read: () => Promise<boolean>, what: string) => {
      const deadline = Date.now() + waitMs;
      while (!(await read())) {
        if (Date.now() > deadline) throw new Error(`${what} did not finish`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const runAdmin = async (...args: string[]) => {
      const { runCli } = await import('../../functions/admin/cli');
      let out = '';
      const code = await runCli([...args, '--data-dir', dataDir, '--json'], {
        out: (t) => {
          out += t;
        },
        err: (t) => write(t),
      });
      if (code !== 0) throw new Error(`admin ${args.join(' ')} exited ${code}`);
      return out;
    };

    type Media = Partial<
      Pick<OperationUsage, 'pollyCharacters' | 'pollyTasks' | 'transcribeSeconds' | 'mediaConvertSeconds'>
    > & { engine?: string };
    const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));
    /** Runs `fn` `runs` times and returns what the runs consumed, with the media units they told. */
    const measure = async (
      name: string,
      fn: () => Promise<Media | undefined>,
      runs = 1,
    ): Promise<MeasuredOperation> => {
      await settle();
      markTrace(`${name} (${runs} runs)`);
      accessLog.length = 0;
      executions.length = 0;
      batches.length = 0;
      offPath['log-shipper'].length = 0;
      offPath['event-dispatcher'].length = 0;
      const sendsBefore = sqsSends;
      const fifoSendsBefore = fifoSends;
      const s3Before = { ...s3Calls };
      logBytes = 0;
      emfBytes = 0;
      const before = units.totals();
      const media: Required<Omit<Media, 'engine'>> & Pick<Media, 'engine'> = {
        pollyCharacters: 0,
        pollyTasks: 0,
        transcribeSeconds: 0,
        mediaConvertSeconds: 0,
      };
      for (let run = 0; run < runs; run++) {
        const once = await fn();
        for (const key of ['pollyCharacters', 'transcribeSeconds', 'mediaConvertSeconds'] as const)
          media[key] += once?.[key] ?? 0;
        // A call that tells no task count made one Polly call if it told characters.
        media.pollyTasks += once?.pollyTasks ?? (once?.pollyCharacters ? 1 : 0);
        if (once?.engine) media.engine = once.engine;
      }
      await settle();
      const used = difference(units.totals(), before);
      const invocations = accessLog.flatMap((record) => {
        const group = groupOf(String(record.method), record.route === null ? null : String(record.route));
        if (!group) return [];
        const integration = Number(record.integrationLatencyMs ?? 0);
        return [
          { fn: 'PublicApiV1/AuthorizerFunction', ms: Math.max(1, Number(record.latencyMs) - integration) },
          { fn: `PublicApiV1/Group-${group}/Function`, ms: integration },
        ];
      });
      for (const execution of executions) {
        const fn = WORKER_OF_MACHINE[machineOf(execution)];
        for (const [state, runsOfState] of Object.entries(execution.taskMs ?? {})) {
          const own = FUNCTION_OF_STATE[state];
          if (own) for (const ms of runsOfState) invocations.push({ ...own, ms });
          else if (fn && !INTEGRATION_STATES.has(state))
            for (const ms of runsOfState) invocations.push({ fn, ms });
        }
      }
      for (const { queue, ms } of batches)
        if (WORKER_OF_QUEUE[queue]) invocations.push({ fn: WORKER_OF_QUEUE[queue], ms });
      // The event source's receive of each batch, and its delete of the messages handled.
      const eventSourceRequests = (fifo: boolean) =>
        batches
          .filter((b) => FIFO_QUEUES.has(b.queue) === fifo)
          .reduce((sum, b) => sum + 1 + (b.failed < b.messages ? 1 : 0), 0);
      const sqsRequests = sqsSends - sendsBefore + eventSourceRequests(false);
      const sqsFifoRequests = fifoSends - fifoSendsBefore + eventSourceRequests(true);
      const accessLogBytes = accessLog.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r)), 0);
      const work = (kind: Exclude<Work, 'request' | 'setup'>, fn: string): OffPathWork => ({
        fn,
        batchesMs: offPath[kind].map((b) => b.ms),
        records: offPath[kind].reduce((sum, b) => sum + b.records, 0),
        readUnits: used.byWork[kind].read,
        writeUnits: used.byWork[kind].write,
        // Once a batch: the shipper's compute meter; the dispatcher's `contacts` counter (0063) and the usage
        // month and storage figure of the jobs it settles (0065), one a chunk each.
        perBatchWriteUnits:
          kind === 'log-shipper'
            ? used.byWork[kind].usageWrite
            : used.byWork[kind].counterWrite + used.byWork[kind].usageWrite,
      });
      const request = used.byWork.request;
      return {
        name,
        indexWriteUnits: request.indexWrite / runs,
        meterWriteUnits: request.usageWrite / runs,
        ...(media.engine ? { engine: media.engine } : {}),
        usage: {
          runs,
          apiRequests: accessLog.length,
          invocations,
          readUnits: request.read,
          writeUnits: request.write,
          stateTransitions: executions
            .filter((e) => !EXPRESS_MACHINES.has(machineOf(e)))
            .reduce((sum, e) => sum + (e.stateTransitions ?? 0), 0),
          expressExecutionsMs: executions
            .filter((e) => EXPRESS_MACHINES.has(machineOf(e)))
            .map((e) => e.durationMs ?? 0),
          sqsRequests,
          sqsFifoRequests,
          s3Puts: s3Calls.puts - s3Before.puts,
          s3Gets: s3Calls.gets - s3Before.gets,
          pollyCharacters: media.pollyCharacters,
          pollyTasks: media.pollyTasks,
          transcribeSeconds: media.transcribeSeconds,
          mediaConvertSeconds: media.mediaConvertSeconds,
          logBytes: logBytes + accessLogBytes,
          emfLogBytes: emfBytes,
          offPath: [work('log-shipper', SHIPPER_FN), work('event-dispatcher', DISPATCHER_FN)],
          // A trace per request from outside (an API request; a webhook's event has none): executions and
          // queue messages carry the trace on. The off-path invocations' own traces are added in pricing.
          traces: Math.max(accessLog.length, runs),
          kmsRequests: 0,
        },
      };
    };

    const operations = await measureCostOperations({
      companyId,
      call,
      until,
      runAdmin,
      measure,
      unmetered: (fn) => (meter ? meter.within('setup', fn) : fn()),
      dataDir,
      executions,
      batches,
      runMessagesSent: () => runMessagesSent,
    });
    const totals = units.totals();
    process.stdout.write = stdoutWrite;
    return {
      operations,
      transactions: totals.transactions,
      reportedQueries: totals.reportedQueries,
      emptyReads: totals.emptyReads,
      disagreements: units.disagreements(),
    };
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
