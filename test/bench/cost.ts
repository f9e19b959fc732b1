import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueBatchEvent } from '../../functions/local/queues';
import type { ExecutionEvent } from '../../functions/local/step-functions/emulator';
import type { AccessLogRecord } from '../../functions/shared/http/access-log';
import type { OperationUsage } from './cost-model';

/**
 * Measures, through a local stack of its own, what each operation of the cost bench consumes
 * (`cost-model.ts` prices it): API requests and each Lambda invocation's run time from the gateway's access
 * log (the group function's integration time; the authorizer's, the rest of the request's latency), the
 * Task states' run times and state transitions of the executions the operation started, the queue workers'
 * batches (each a Lambda invocation, one receive and one delete request) and the messages sent (at the SQS
 * client), DynamoDB units at the SDK client (`consumed-capacity.ts`), S3 calls at the SDK client, and the
 * log bytes written. An
 * operation is done when its asynchronous work is (job `done`, delivery received), plus a settling pause
 * for the stream's dispatcher.
 */
const SETTLE_MS = 1500;

/** The Lambda function of each Task state that runs one (by machine), as construct paths of the stacks. */
const WORKER_OF_MACHINE: Record<string, string> = {
  transcode: 'PublicApiV1Jobs/Transcodes/Worker',
  transcription: 'PublicApiV1Jobs/Transcriptions/Worker',
  'message-delivery': 'PublicApiV1Jobs/MessageDelivery/Worker',
};
/** Machines deployed as Express (`lib/constructs/message-delivery.ts`): billed by request and duration. */
const EXPRESS_MACHINES = new Set(['message-delivery']);
/** The Lambda function each local queue's event source invokes. */
const WORKER_OF_QUEUE: Record<string, string> = {
  'webhook-delivery': 'PublicApiV1Jobs/WebhookEvents/Worker',
  'workflow-run': 'PublicApiV1Jobs/WorkflowRuns/Worker',
};
/** Task states that are service integrations (billed by that service), not Lambda invocations. */
const INTEGRATION_STATES = new Set([
  'Transcode',
  'StartTranscription',
  'StartTranscriptionIdentifyingLanguage',
  'CheckTranscription',
]);

const machineOf = (execution: ExecutionEvent) => execution.executionArn.split(':')[6] ?? '';

export interface MeasuredOperation {
  name: string;
  usage: OperationUsage;
}

export const measureOperations = async (write: (line: string) => void): Promise<MeasuredOperation[]> => {
  const { startLocalStack } = await import('../../functions/local/stack');
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-cost-'));
  const accessLog: AccessLogRecord[] = [];
  const executions: ExecutionEvent[] = [];
  const batches: QueueBatchEvent[] = [];
  const stack = await startLocalStack({
    dataDir,
    shipLogs: false,
    allowLoopbackOutbound: true,
    onAccessLog: (record) => accessLog.push(record),
    onExecutionEnd: (event) => executions.push(event),
    onQueueBatch: (event) => batches.push(event),
  });
  try {
    const { dynamodbClient } = await import('../../functions/shared/data/client');
    const { installCapacityMeter } = await import('./consumed-capacity');
    const capacity = installCapacityMeter(dynamodbClient);
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
    let runMessagesSent = 0;
    sqs.middlewareStack.add(
      (next) => async (args) => {
        sqsSends += 1;
        if (String((args.input as { QueueUrl?: unknown }).QueueUrl).endsWith('/workflow-run'))
          runMessagesSent += 1;
        return next(args);
      },
      { step: 'initialize', name: 'costSqsCounter' },
    );
    // Log lines the functions write (Powertools JSON on stdout), counted by bytes.
    let logBytes = 0;
    const stdoutWrite = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      if (text.startsWith('{"')) {
        logBytes += Buffer.byteLength(text);
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
    const until = async (read: () => Promise<boolean>, what: string) => {
      const deadline = Date.now() + 120_000;
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
      Pick<OperationUsage, 'pollyCharacters' | 'transcribeSeconds' | 'mediaConvertSeconds'>
    >;
    /** Runs `fn` `runs` times and returns what the runs consumed, with the media units they told. */
    const measure = async (
      name: string,
      fn: () => Promise<Media | undefined>,
      runs = 1,
    ): Promise<MeasuredOperation> => {
      accessLog.length = 0;
      executions.length = 0;
      batches.length = 0;
      const sendsBefore = sqsSends;
      const s3Before = { ...s3Calls };
      logBytes = 0;
      const { result: media, units } = await capacity.measure(async () => {
        const told: Required<Media> = { pollyCharacters: 0, transcribeSeconds: 0, mediaConvertSeconds: 0 };
        for (let run = 0; run < runs; run++) {
          const once = await fn();
          for (const key of Object.keys(told) as (keyof Media)[]) told[key] += once?.[key] ?? 0;
        }
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        return told;
      });
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
        for (const [state, runsOfState] of Object.entries(execution.taskMs ?? {}))
          if (fn && !INTEGRATION_STATES.has(state))
            for (const ms of runsOfState) invocations.push({ fn, ms });
      }
      for (const { queue, ms } of batches)
        if (WORKER_OF_QUEUE[queue]) invocations.push({ fn: WORKER_OF_QUEUE[queue], ms });
      // The event source's receive of each batch, and its delete of the messages handled.
      const sqsRequests =
        sqsSends - sendsBefore + batches.reduce((sum, b) => sum + 1 + (b.failed < b.messages ? 1 : 0), 0);
      const accessLogBytes = accessLog.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r)), 0);
      return {
        name,
        usage: {
          runs,
          apiRequests: accessLog.length,
          invocations,
          readUnits: units.readUnits,
          writeUnits: units.writeUnits,
          stateTransitions: executions
            .filter((e) => !EXPRESS_MACHINES.has(machineOf(e)))
            .reduce((sum, e) => sum + (e.stateTransitions ?? 0), 0),
          expressExecutionsMs: executions
            .filter((e) => EXPRESS_MACHINES.has(machineOf(e)))
            .map((e) => e.durationMs ?? 0),
          sqsRequests,
          s3Puts: s3Calls.puts - s3Before.puts,
          s3Gets: s3Calls.gets - s3Before.gets,
          pollyCharacters: media.pollyCharacters,
          transcribeSeconds: media.transcribeSeconds,
          mediaConvertSeconds: media.mediaConvertSeconds,
          logBytes: logBytes + accessLogBytes,
        },
      };
    };

    /** One API call per run. */
    const measureCall = (name: string, runs: number, method: string, path: string, body?: unknown) =>
      measure(
        name,
        async () => {
          await call(method, path, body);
          return undefined;
        },
        runs,
      );
    const operations: MeasuredOperation[] = [];
    // Warm-up: the plan cache, the signing keys, the first route of each group.
    await call('GET', '/v1/self');
    operations.push(await measureCall('GET /v1/self (metered read)', 20, 'GET', '/v1/self'));
    await call('POST', '/v1/dynadata/type/contacts/create', { name: 'Warm' });
    operations.push(
      await measureCall('Dynadata create (contacts)', 10, 'POST', '/v1/dynadata/type/contacts/create', {
        name: 'Ada',
      }),
    );
    for (let i = 0; i < 100; i++) await call('POST', '/v1/dynadata/type/contacts/create', { name: `C${i}` });
    operations.push(
      await measure(
        'Dynadata list, page of 100',
        async () => {
          const page = await call('POST', '/v1/dynadata/type/contacts/list', { limit: 100 });
          if ((page.items as unknown[]).length !== 100)
            throw new Error('the page holds fewer than 100 items');
          return undefined;
        },
        5,
      ),
    );

    // Messages and webhooks are delivered to a receiver on loopback.
    let received = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received += 1;
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await runAdmin('channels', 'set', '--company', companyId, '--url', `${receiver}/messages`);
    const contact = await call('POST', '/v1/dynadata/type/contacts/create', { name: 'Grace' });
    const send = () =>
      call('POST', `/v1/contacts/${String(contact._id)}/send_message`, {
        type: 'text',
        body: { text: 'Hello.' },
      });
    const delivered = async (expected: number) => until(async () => received >= expected, 'the delivery');
    await send();
    await delivered(1);
    operations.push(
      await measure(
        'message sent and delivered',
        async () => {
          const before = received;
          await send();
          await delivered(before + 1);
          return undefined;
        },
        3,
      ),
    );

    const { storeMedia } = await import('./cost-media');
    const getTranscodeJob = (await import('../../functions/shared/domain/transcodes')).transcodeJobs.lifecycle
      .getJob;
    const getTranscriptionJob = (await import('../../functions/shared/domain/transcriptions'))
      .transcriptionJobs.lifecycle.getJob;
    /** Resolves when one more execution of `machine` has ended than when it was called. */
    /**
     * Starts a run with `start` and resolves when every `workflow-run` message sent since has been handled:
     * each message ends its run or sends the next turn's before it is done, so the run has ended.
     */
    const runDrained = async (start: () => Promise<unknown>) => {
      const handled = () =>
        batches.filter((b) => b.queue === 'workflow-run').reduce((sum, b) => sum + b.messages - b.failed, 0);
      const handledBefore = handled();
      const sentBefore = runMessagesSent;
      await start();
      await until(
        async () => handled() - handledBefore >= runMessagesSent - sentBefore && runMessagesSent > sentBefore,
        'the workflow run',
      );
    };
    const ended = async (machine: string) => {
      const count = () => executions.filter((e) => e.executionArn.split(':')[6] === machine).length;
      const before = count();
      await until(async () => count() > before, `the ${machine} execution`);
    };
    const tone = await storeMedia(companyId, 'tone');
    operations.push(
      await measure('60 s transcode (wav)', async () => {
        const { job } = (await call('POST', '/v1/transcodes', { fullPath: tone, preset: 'wav' })) as {
          job: { id: string };
        };
        // Waits for the execution, not by polling the API (a client's polls are reads of their own).
        await ended('transcode');
        const done = await getTranscodeJob(companyId, job.id);
        if (done?.status !== 'done') throw new Error(`the transcode ended ${done?.status}`);
        return { mediaConvertSeconds: done.billedSeconds };
      }),
    );
    const speech = await storeMedia(companyId, 'speech');
    operations.push(
      await measure('60 s transcription', async () => {
        const { job } = (await call('POST', '/v1/transcriptions', { fullPath: speech })) as {
          job: { id: string };
        };
        await ended('transcription');
        const done = await getTranscriptionJob(companyId, job.id);
        if (done?.status !== 'done') throw new Error(`the transcription ended ${done?.status}`);
        return { transcribeSeconds: done.billedSeconds };
      }),
    );
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(23).slice(0, 1000);
    operations.push(
      await measure(
        'speech, 1,000 characters',
        async () => {
          const answer = await call('POST', '/v1/speech', { text });
          return { pollyCharacters: Number(answer.characters ?? 1000) };
        },
        2,
      ),
    );

    const file = join(dataDir, 'five-steps.json');
    const steps = Array.from({ length: 5 }, (_, i) => ({
      id: `s${i}`,
      action: 'actions/speech/spoken-text',
      with: { markdown: 'Hi.' },
    }));
    writeFileSync(file, JSON.stringify({ id: 'five-steps', name: 'Five steps', steps }));
    await runAdmin('workflows', 'put', '--company', companyId, '--file', file);
    await call('POST', '/v1/workflows/five-steps/run', { mode: 'sync' });
    operations.push(
      await measureCall('workflow run, 5 steps, sync', 3, 'POST', '/v1/workflows/five-steps/run', {
        mode: 'sync',
      }),
    );
    operations.push(
      await measure(
        'workflow run, 5 steps, async',
        async () => {
          await runDrained(() => call('POST', '/v1/workflows/five-steps/run', { mode: 'async' }));
          return undefined;
        },
        3,
      ),
    );

    const { createEndpoint } = await import('../../functions/shared/data/webhook-endpoints');
    const { newWebhookSecret } = await import('../../functions/shared/domain/messages/webhooks');
    const { putEvent } = await import('../../functions/shared/data/events');
    const iso = new Date().toISOString();
    await createEndpoint(
      {
        id: 'we_cost',
        companyId,
        url: `${receiver}/hooks`,
        events: ['*'],
        secret: newWebhookSecret(),
        status: 'enabled',
        createdAt: iso,
        updatedAt: iso,
      },
      10,
    );
    operations.push(
      await measure(
        'webhook delivery (one event)',
        async () => {
          const before = received;
          await putEvent({
            companyId,
            type: 'transcode.done',
            resourceId: 'tc_cost',
            data: { id: 'tc_cost' },
            now: new Date(),
          });
          await delivered(before + 1);
          return undefined;
        },
        3,
      ),
    );
    server.close();
    process.stdout.write = stdoutWrite;
    return operations;
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
