import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { QueueBatchEvent } from '../../functions/local/queues';
import type { ExecutionEvent } from '../../functions/local/step-functions/emulator';
import { storeMedia } from './cost-media';
import type { MeasuredOperation, OperationUsage } from './cost-model';

/**
 * The operations of `npm run bench -- cost`, run one after another through the harness of `cost.ts`
 * (each measured over its runs): the metered read, Dynadata's create and lists, a message, the media jobs
 * (the 60 s transcode to `ogg_opus`, the transcription, speech and the 12,000-character speech job, with
 * and without timings),
 * workflow runs of 3 and 5 steps (sync and async) and a webhook delivery.
 */
type Media = Partial<
  Pick<OperationUsage, 'pollyCharacters' | 'pollyTasks' | 'transcribeSeconds' | 'mediaConvertSeconds'>
> & {
  engine?: string;
};

/** The Task states of `statemachines/speech-job.asl.json` that start a Polly synthesis task. */
const POLLY_START_STATES = ['StartAudioSynthesis', 'StartMarksSynthesis'];

export interface CostHarness {
  companyId: string;
  call: (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;
  until: (read: () => Promise<boolean>, what: string) => Promise<void>;
  runAdmin: (...args: string[]) => Promise<string>;
  measure: (name: string, fn: () => Promise<Media | undefined>, runs?: number) => Promise<MeasuredOperation>;
  /** Runs `fn` inside a measure without counting its DynamoDB units (what the bench writes to stage a run). */
  unmetered: <T>(fn: () => Promise<T>) => Promise<T>;
  dataDir: string;
  executions: ExecutionEvent[];
  batches: QueueBatchEvent[];
  runMessagesSent: () => number;
}

/** A custom type's schema of about 3 KB: the fields of an order, each with a title and a description. */
const ORDER_FIELDS: Record<string, [string, Record<string, unknown>]> = {
  number: [
    'The order number shown to the customer, unique within the shop',
    { type: 'string', maxLength: 40 },
  ],
  status: [
    'Where the order stands',
    {
      type: 'string',
      maxLength: 20,
      enum: ['new', 'paid', 'packed', 'shipped', 'delivered', 'cancelled', 'refunded'],
    },
  ],
  total: ['The amount charged, taxes and delivery included', { type: 'number', minimum: 0 }],
  currency: ['ISO 4217 code of the amount', { type: 'string', minLength: 3, maxLength: 3 }],
  customerId: ['The contact who placed the order', { type: 'string', maxLength: 64 }],
  customerEmail: ['Where the receipt and the delivery notices go', { type: 'string', format: 'email' }],
  placedAt: ['When the customer confirmed the order', { type: 'string', format: 'date-time' }],
  paidAt: ['When the payment was captured', { type: 'string', format: 'date-time' }],
  shippedAt: ['When the carrier took the parcel', { type: 'string', format: 'date-time' }],
  carrier: ['The carrier that delivers the parcel', { type: 'string', maxLength: 60 }],
  trackingNumber: ["The carrier's tracking number of the parcel", { type: 'string', maxLength: 80 }],
  street: ['Delivery address: street and number', { type: 'string', maxLength: 200 }],
  city: ['Delivery address: city', { type: 'string', maxLength: 100 }],
  postalCode: ['Delivery address: postal code', { type: 'string', maxLength: 20 }],
  country: ['Delivery address: ISO 3166-1 alpha-2 country code', { type: 'string', pattern: '^[A-Z]{2}$' }],
  discountCode: ['The discount code applied at checkout, if any', { type: 'string', maxLength: 40 }],
  discount: ['The amount the discount took off the total', { type: 'number', minimum: 0 }],
  tax: ['The tax included in the total', { type: 'number', minimum: 0 }],
  notes: ['Free text the customer left with the order', { type: 'string', maxLength: 2000 }],
  giftWrap: ['Whether the customer asked for gift wrapping', { type: 'boolean' }],
  lines: [
    'The products ordered, one line each',
    {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        properties: {
          sku: { type: 'string', maxLength: 40 },
          quantity: { type: 'integer', minimum: 1 },
          unitPrice: { type: 'number', minimum: 0 },
        },
        required: ['sku', 'quantity'],
      },
    },
  ],
};
const ORDER_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(ORDER_FIELDS).map(([name, [description, schema]]) => [name, { description, ...schema }]),
  ),
  required: ['number', 'status', 'total'],
  'x-indexed': ['status'],
};

export const measureCostOperations = async (harness: CostHarness): Promise<MeasuredOperation[]> => {
  const {
    companyId,
    call,
    until,
    runAdmin,
    measure,
    unmetered,
    dataDir,
    executions,
    batches,
    runMessagesSent,
  } = harness;
  const operations: MeasuredOperation[] = [];
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
  // Warm-up: the plan cache, the signing keys, the first route of each group.
  await call('GET', '/v1/self');
  operations.push(await measureCall('GET /v1/self (metered read)', 20, 'GET', '/v1/self'));
  await call('POST', '/v1/dynadata/type/contacts/create', { name: 'Warm' });
  operations.push(
    await measureCall('Dynadata create (contacts)', 10, 'POST', '/v1/dynadata/type/contacts/create', {
      name: 'Ada',
    }),
  );
  // A custom type whose record holds a realistic schema of 2–4 KB (`ORDER_SCHEMA`).
  await call('PUT', '/v1/dynadata/types/orders', {
    description: 'Orders taken by the shop, with their lines, delivery and payment state',
    schema: ORDER_SCHEMA,
  });
  await call('POST', '/v1/dynadata/type/orders/create', { number: 'W-1', status: 'new', total: 1 });
  operations.push(
    await measureCall(
      'Dynadata create (custom type, 3 KB schema)',
      10,
      'POST',
      '/v1/dynadata/type/orders/create',
      {
        number: 'A-1',
        status: 'new',
        total: 42.5,
        currency: 'EUR',
      },
    ),
  );
  for (let i = 0; i < 100; i++) await call('POST', '/v1/dynadata/type/contacts/create', { name: `C${i}` });
  operations.push(
    await measure(
      'Dynadata list, page of 50',
      async () => {
        const page = await call('POST', '/v1/dynadata/type/contacts/list', { limit: 50 });
        if ((page.items as unknown[]).length !== 50) throw new Error('the page holds fewer than 50 items');
        return undefined;
      },
      5,
    ),
  );
  operations.push(
    await measure(
      'Dynadata list, page of 100',
      async () => {
        const page = await call('POST', '/v1/dynadata/type/contacts/list', { limit: 100 });
        if ((page.items as unknown[]).length !== 100) throw new Error('the page holds fewer than 100 items');
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

  const getTranscodeJob = (await import('../../functions/shared/domain/transcodes')).transcodeJobs.lifecycle
    .getJob;
  const getTranscriptionJob = (await import('../../functions/shared/domain/transcriptions')).transcriptionJobs
    .lifecycle.getJob;
  /**
   * Starts a run with `start` and resolves when every `workflow-run` message sent since has been handled:
   * each message ends its run or sends the next turn's before it is done, so the run has ended.
   */
  const runDrained = async (start: () => Promise<unknown>) => {
    const handled = () =>
      batches.filter((b) => b.queue === 'workflow-run').reduce((sum, b) => sum + b.messages - b.failed, 0);
    const handledBefore = handled();
    const sentBefore = runMessagesSent();
    await start();
    await until(
      async () =>
        handled() - handledBefore >= runMessagesSent() - sentBefore && runMessagesSent() > sentBefore,
      'the workflow run',
    );
  };
  /** Resolves when one more execution of `machine` has ended than when it was called. */
  const ended = async (machine: string) => {
    const count = () => executions.filter((e) => e.executionArn.split(':')[6] === machine).length;
    const before = count();
    await until(async () => count() > before, `the ${machine} execution`);
  };
  const tone = await storeMedia(companyId, 'tone');
  operations.push(
    await measure('60 s audio → ogg_opus', async () => {
      const { job } = (await call('POST', '/v1/transcodes', { fullPath: tone, preset: 'ogg_opus' })) as {
        job: { id: string };
      };
      // Waits for the execution, not by polling the API (a client's polls are reads of their own).
      // Audio-only presets run on the Express audio machine (decision 0046).
      await ended('transcode-audio');
      const done = await getTranscodeJob(companyId, job.id);
      if (done?.status !== 'done') throw new Error(`the transcode ended ${done?.status}`);
      // The engine the job ran on, where the job names it; MediaConvert otherwise.
      const engine = String((done as { engine?: unknown }).engine ?? 'mediaconvert');
      return { mediaConvertSeconds: engine === 'mediaconvert' ? done.billedSeconds : 0, engine };
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
      return { transcribeSeconds: done.billedSeconds, engine: 'transcribe' };
    }),
  );
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(23).slice(0, 1000);
  operations.push(
    await measure(
      'speech, 1,000 characters',
      async () => {
        const answer = await call('POST', '/v1/speech', { text });
        return { pollyCharacters: Number(answer.characters ?? 1000), engine: 'polly' };
      },
      2,
    ),
  );

  const { SPEECH_JOB_TYPE } = await import('../../functions/shared/domain/speech-jobs');
  const { markdownDocument } = await import('../fixtures/long-markdown');
  for (const timings of [true, false]) {
    const name = `speech job, 12,000 characters${timings ? '' : ', no timings'}`;
    operations.push(
      await measure(name, async () => {
        const markdown = markdownDocument(12_000, `cost${Date.now().toString(36)}`);
        const { job } = (await call('POST', '/v1/speech/jobs', { markdown, format: 'mp3', timings })) as {
          job: { id: string };
        };
        await ended('speech-job');
        const done = await SPEECH_JOB_TYPE.lifecycle.getJob(companyId, job.id);
        if (done?.status !== 'done') throw new Error(`the speech job ended ${done?.status}`);
        // Each Polly task the execution started (the audio; the sentence speech marks unless the job has no
        // timings) reads the whole text, billed per character.
        const execution = executions.findLast((e) => e.executionArn.split(':')[6] === 'speech-job');
        const pollyTasks = POLLY_START_STATES.filter((state) => execution?.taskMs?.[state]).length;
        return { pollyCharacters: pollyTasks * done.characters, pollyTasks, engine: 'polly' };
      }),
    );
  }

  for (const count of [3, 5]) {
    const id = `steps-${count}`;
    const file = join(dataDir, `${id}.json`);
    const steps = Array.from({ length: count }, (_, i) => ({
      id: `s${i}`,
      action: 'actions/speech/spoken-text',
      with: { markdown: 'Hi.' },
    }));
    writeFileSync(file, JSON.stringify({ id, name: `${count} steps`, steps }));
    await runAdmin('workflows', 'put', '--company', companyId, '--file', file);
    await call('POST', `/v1/workflows/${id}/run`, { mode: 'sync' });
    operations.push(
      await measureCall(`workflow run, ${count} steps, sync`, 3, 'POST', `/v1/workflows/${id}/run`, {
        mode: 'sync',
      }),
    );
    operations.push(
      await measure(
        `workflow run, ${count} steps, async`,
        async () => {
          await runDrained(() => call('POST', `/v1/workflows/${id}/run`, { mode: 'async' }));
          return undefined;
        },
        3,
      ),
    );
  }
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
        // The event's own write is the raising change's (each operation's floor has its event): not counted here.
        await unmetered(() =>
          putEvent({
            companyId,
            type: 'transcode.done',
            resourceId: 'tc_cost',
            data: { id: 'tc_cost' },
            now: new Date(),
          }),
        );
        await delivered(before + 1);
        return undefined;
      },
      3,
    ),
  );
  server.close();
  return operations;
};
