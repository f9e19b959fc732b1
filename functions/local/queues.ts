import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { MAX_QUEUE_DELAY_SECONDS } from '../shared/types/queues';
import type { RunningService } from './dynamodb-local';
import { writeFileAtomically } from './state-file';

/**
 * SQS queues on loopback for the local stack, each with the Lambda event source that feeds it to its worker
 * on AWS. The endpoint speaks the AWS JSON 1.0 protocol the SDK's `SQSClient` uses (`SendMessage`, with
 * `DelaySeconds` up to 15 minutes, as SQS refuses more; `ChangeMessageVisibility` and its batch form); a FIFO
 * queue keeps each message group in order, with at most one of its messages in flight, and drops a repeated
 * de-duplication id within 5 minutes (`fifo`); the event source hands visible messages, a batch at
 * a time, to the very worker handler Lambda runs (`SQSEvent` in, partial batch response out): a message the
 * handler reports failing (or every message of a batch whose handler throws) stays hidden for the queue's
 * visibility timeout and comes back with its receive count raised, and after `maxReceiveCount` receives it
 * moves to the queue's dead letters, as a redrive policy moves it to the dead-letter queue.
 *
 * Messages live in memory, except a `durable` queue's, which are written to a file under the stack's data
 * directory after each change: a restart of the local stack loses the others, and start-up recovery wakes
 * the work they carried (`recovery.ts`).
 */
type QueueHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface LocalQueueDefinition {
  name: string;
  /** The worker's handler, loaded on first use (after the runtime environment is set). */
  handler: () => Promise<QueueHandler>;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  batchSize: number;
  /** Batches handed to the handler at once (Lambda's concurrency for the event source). */
  concurrency: number;
  /**
   * A FIFO queue (high-throughput mode): every message names its group and de-duplication id; a group's
   * messages are handed out in the order sent, and none while one of the group is in flight; a
   * de-duplication id seen in its group within 5 minutes sends nothing; no per-message delay.
   */
  fifo?: boolean;
  /**
   * Messages kept on disk (a file under the stack's data directory), as SQS keeps them: a restart, after a
   * crash too, finds them, those in flight at the stop visible again at once (their receiver is gone).
   */
  durable?: boolean;
}

/** One batch handed to a worker, for the cost bench: its messages, run time and SQS requests. */
export interface QueueBatchEvent {
  queue: string;
  messages: number;
  failed: number;
  ms: number;
}

export interface QueueCounts {
  /**
   * SQS requests: `SendMessage` calls, the event source's receives (one per batch) and deletes, and
   * `ChangeMessageVisibility` calls (one `ChangeMessageVisibilityBatch` counts one).
   */
  sends: number;
  receives: number;
  deletes: number;
  visibilityChanges: number;
}

export interface LocalQueues extends RunningService {
  queueUrl: (name: string) => string;
  /** Requests made to each queue so far (the cost bench reads them). */
  counts: (name: string) => QueueCounts;
  /** Messages moved to a queue's dead letters (received `maxReceiveCount` times without success). */
  deadLetters: (name: string) => readonly { body: string; receiveCount: number }[];
}

interface StoredMessage {
  id: string;
  body: string;
  /** A FIFO queue's message group. */
  group?: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
}

interface Queue {
  definition: LocalQueueDefinition;
  messages: StoredMessage[];
  dead: { body: string; receiveCount: number }[];
  counts: QueueCounts;
  running: number;
  /** A FIFO queue's de-duplication ids (per group) and when each was first sent, with its message id. */
  sent: Map<string, { at: number; id: string }>;
}

/** How long a FIFO queue remembers a de-duplication id. */
const DEDUPLICATION_MS = 5 * 60_000;

class QueueError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const POLL_MS = 50;
const ACCOUNT = '000000000000';

/** A FIFO send's group and de-duplication id (both required: no content-based de-duplication here). */
const fifoFields = (input: Record<string, unknown>, delay: number) => {
  const { MessageGroupId: group, MessageDeduplicationId: deduplicationId } = input;
  const valid = (v: unknown): v is string => typeof v === 'string' && /^[!-~]{1,128}$/.test(v);
  if (!valid(group)) throw new QueueError('MissingParameter', 'A FIFO queue needs MessageGroupId');
  if (!valid(deduplicationId))
    throw new QueueError('InvalidParameterValue', 'A FIFO queue needs MessageDeduplicationId');
  if (delay !== 0)
    throw new QueueError('InvalidParameterValue', 'A FIFO queue takes no per-message DelaySeconds');
  return { group, deduplicationId };
};

/**
 * The messages a FIFO queue hands out now, in the order sent: a group whose message is in flight hands out
 * nothing (its later messages wait); another hands out its visible messages from its head on.
 */
const fifoBatch = (messages: readonly StoredMessage[], now: number): StoredMessage[] => {
  const closed = new Set<string | undefined>();
  const batch: StoredMessage[] = [];
  for (const message of messages) {
    if (closed.has(message.group)) continue;
    if (message.visibleAt > now) closed.add(message.group);
    else batch.push(message);
  }
  return batch;
};

/**
 * The FIFO batch rule: a message of a group that failed keeps the group's later messages of the batch in
 * the queue, in order, whatever the handler answered for them (a handler that reports a later one done
 * breaks the group's order on SQS, which would delete it: logged).
 */
const withGroupsHeldBack = (
  queueName: string,
  batch: readonly StoredMessage[],
  failed: ReadonlySet<string>,
): Set<string> => {
  const held = new Set(failed);
  const failedGroups = new Set<string | undefined>();
  for (const message of batch) {
    if (failedGroups.has(message.group) && !held.has(message.id)) {
      process.stderr.write(
        `queue ${queueName}: a message after a failed one of its group was reported done\n`,
      );
      held.add(message.id);
    }
    if (held.has(message.id)) failedGroups.add(message.group);
  }
  return held;
};

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

/** What a durable queue keeps on disk. */
interface QueueFile {
  messages: StoredMessage[];
  dead: { body: string; receiveCount: number }[];
  sent: [string, { at: number; id: string }][];
}

export const startLocalQueues = async (options: {
  region: string;
  queues: readonly LocalQueueDefinition[];
  onBatch?: (event: QueueBatchEvent) => void;
  /** Where durable queues keep their messages (`durable`); without it every queue lives in memory. */
  dataDir?: string;
}): Promise<LocalQueues> => {
  const fileOf = (definition: LocalQueueDefinition) =>
    definition.durable === true && options.dataDir
      ? join(options.dataDir, `queue-${definition.name}.json`)
      : undefined;
  /** A durable queue's messages as the previous run left them; those it had in flight are visible at once. */
  const kept = (definition: LocalQueueDefinition): QueueFile => {
    const file = fileOf(definition);
    if (!file || !existsSync(file)) return { messages: [], dead: [], sent: [] };
    const stored = JSON.parse(readFileSync(file, 'utf8')) as QueueFile;
    const now = Date.now();
    for (const message of stored.messages)
      if (message.receiveCount > 0) message.visibleAt = Math.min(message.visibleAt, now);
    return stored;
  };
  const queues = new Map<string, Queue>(
    options.queues.map((definition) => {
      const stored = kept(definition);
      return [
        definition.name,
        {
          definition,
          messages: stored.messages,
          dead: stored.dead,
          counts: { sends: 0, receives: 0, deletes: 0, visibilityChanges: 0 },
          running: 0,
          sent: new Map(stored.sent),
        },
      ];
    }),
  );
  /** Writes a durable queue's messages whole after each change (nothing of an accepted send is lost). */
  const save = (queue: Queue) => {
    const file = fileOf(queue.definition);
    // A stopped queue writes nothing more (as a crashed one): the next run owns the file.
    if (!file || stopped) return;
    const state: QueueFile = { messages: queue.messages, dead: queue.dead, sent: [...queue.sent] };
    writeFileAtomically(file, JSON.stringify(state));
  };
  let endpoint = '';
  const arnOf = (name: string) => `arn:aws:sqs:${options.region}:${ACCOUNT}:${name}`;
  const queueOf = (url: unknown): Queue => {
    const name = typeof url === 'string' ? url.split('/').pop() : undefined;
    const queue = name ? queues.get(name) : undefined;
    if (!queue)
      throw new QueueError(
        'AWS.SimpleQueueService.NonExistentQueue',
        `The queue ${String(url)} does not exist`,
      );
    return queue;
  };

  const sendMessage = (input: Record<string, unknown>) => {
    const queue = queueOf(input.QueueUrl);
    const body = input.MessageBody;
    if (typeof body !== 'string' || body.length === 0)
      throw new QueueError('InvalidParameterValue', 'MessageBody must be a non-empty string');
    if (Buffer.byteLength(body) > 256 * 1024)
      throw new QueueError('InvalidParameterValue', 'MessageBody must be at most 256 KiB');
    const delay = Number(input.DelaySeconds ?? 0);
    if (!Number.isInteger(delay) || delay < 0 || delay > MAX_QUEUE_DELAY_SECONDS)
      throw new QueueError('InvalidParameterValue', `DelaySeconds must be 0 to ${MAX_QUEUE_DELAY_SECONDS}`);
    const now = Date.now();
    const fifo = queue.definition.fifo === true ? fifoFields(input, delay) : undefined;
    queue.counts.sends += 1;
    if (fifo) {
      for (const [key, sent] of queue.sent) if (now - sent.at >= DEDUPLICATION_MS) queue.sent.delete(key);
      const seen = queue.sent.get(`${fifo.group}\n${fifo.deduplicationId}`);
      // A repeat within 5 minutes is accepted and sends nothing (the first send's id is answered).
      if (seen) return { MessageId: seen.id, MD5OfMessageBody: md5(body) };
    }
    const id = randomUUID();
    queue.messages.push({
      id,
      body,
      sentAt: now,
      visibleAt: now + delay * 1000,
      receiveCount: 0,
      ...(fifo ? { group: fifo.group } : {}),
    });
    if (fifo) queue.sent.set(`${fifo.group}\n${fifo.deduplicationId}`, { at: now, id });
    save(queue);
    return { MessageId: id, MD5OfMessageBody: md5(body) };
  };

  /** A message in flight by its receipt handle (the one of its latest receive), as SQS finds it. */
  const inFlightBy = (queue: Queue, receiptHandle: unknown): StoredMessage => {
    const now = Date.now();
    const message = queue.messages.find((m) => `${m.id}#${m.receiveCount}` === receiptHandle);
    if (!message || message.visibleAt <= now)
      throw new QueueError('AWS.SimpleQueueService.MessageNotInflight', 'The message is not in flight');
    return message;
  };

  const visibilityOf = (value: unknown): number => {
    const seconds = Number(value);
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200)
      throw new QueueError('InvalidParameterValue', 'VisibilityTimeout must be 0 to 43200');
    return seconds;
  };

  const changeVisibility = (input: Record<string, unknown>) => {
    const queue = queueOf(input.QueueUrl);
    queue.counts.visibilityChanges += 1;
    inFlightBy(queue, input.ReceiptHandle).visibleAt =
      Date.now() + visibilityOf(input.VisibilityTimeout) * 1000;
    return {};
  };

  const changeVisibilityBatch = (input: Record<string, unknown>) => {
    const queue = queueOf(input.QueueUrl);
    const entries = (input.Entries ?? []) as Record<string, unknown>[];
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > 10)
      throw new QueueError('AWS.SimpleQueueService.TooManyEntriesInBatchRequest', 'One to 10 entries');
    queue.counts.visibilityChanges += 1;
    const Successful: { Id: unknown }[] = [];
    const Failed: { Id: unknown; Code: string; SenderFault: boolean; Message: string }[] = [];
    for (const entry of entries) {
      try {
        inFlightBy(queue, entry.ReceiptHandle).visibleAt =
          Date.now() + visibilityOf(entry.VisibilityTimeout) * 1000;
        Successful.push({ Id: entry.Id });
      } catch (error) {
        if (!(error instanceof QueueError)) throw error;
        Failed.push({ Id: entry.Id, Code: error.type, SenderFault: true, Message: error.message });
      }
    }
    save(queue);
    return { Successful, Failed };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(body));
    };
    try {
      const action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      const input = JSON.parse((await readBody(req)) || '{}') as Record<string, unknown>;
      if (action === 'SendMessage') return send(200, sendMessage(input));
      if (action === 'ChangeMessageVisibility') return send(200, changeVisibility(input));
      if (action === 'ChangeMessageVisibilityBatch') return send(200, changeVisibilityBatch(input));
      throw new QueueError('UnsupportedOperation', `${action || 'this request'} is not served locally`);
    } catch (error) {
      if (error instanceof QueueError) return send(400, { __type: error.type, message: error.message });
      return send(500, { __type: 'InternalFailure', message: String(error) });
    }
  };

  const recordOf = (queue: Queue, message: StoredMessage): SQSRecord => ({
    messageId: message.id,
    receiptHandle: `${message.id}#${message.receiveCount}`,
    body: message.body,
    attributes: {
      ...(message.group === undefined ? {} : { MessageGroupId: message.group }),
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: ACCOUNT,
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? Date.now()),
    },
    messageAttributes: {},
    md5OfBody: md5(message.body),
    eventSource: 'aws:sqs',
    eventSourceARN: arnOf(queue.definition.name),
    awsRegion: options.region,
  });

  /** Hands one batch of visible messages to the worker; answers whether there was one. */
  const deliverBatch = (queue: Queue): boolean => {
    const now = Date.now();
    const { definition } = queue;
    const batch = (
      definition.fifo === true
        ? fifoBatch(queue.messages, now)
        : queue.messages.filter((m) => m.visibleAt <= now)
    ).slice(0, definition.batchSize);
    if (batch.length === 0) return false;
    for (const message of batch) {
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + definition.visibilityTimeoutSeconds * 1000;
    }
    queue.counts.receives += 1;
    queue.running += 1;
    save(queue);
    const run = async () => {
      const started = performance.now();
      let failed: Set<string>;
      try {
        const handler = await definition.handler();
        const answer = await handler({ Records: batch.map((m) => recordOf(queue, m)) });
        failed = new Set((answer?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      } catch (error) {
        process.stderr.write(`queue ${definition.name}: the batch failed: ${String(error)}\n`);
        failed = new Set(batch.map((m) => m.id));
      }
      if (definition.fifo === true) failed = withGroupsHeldBack(definition.name, batch, failed);
      const done = batch.filter((m) => !failed.has(m.id));
      if (done.length > 0) queue.counts.deletes += 1;
      const dead = batch.filter((m) => failed.has(m.id) && m.receiveCount >= definition.maxReceiveCount);
      for (const message of dead) queue.dead.push({ body: message.body, receiveCount: message.receiveCount });
      const gone = new Set([...done, ...dead].map((m) => m.id));
      queue.messages = queue.messages.filter((m) => !gone.has(m.id));
      save(queue);
      options.onBatch?.({
        queue: definition.name,
        messages: batch.length,
        failed: failed.size,
        ms: performance.now() - started,
      });
    };
    const running = run().finally(() => {
      queue.running -= 1;
      inFlight.delete(running);
    });
    inFlight.add(running);
    return true;
  };

  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const poll = () => {
    if (stopped) return;
    for (const queue of queues.values())
      while (queue.running < queue.definition.concurrency && deliverBatch(queue));
  };
  const timer = setInterval(poll, POLL_MS);

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const queueNamed = (name: string): Queue => {
    const queue = queues.get(name);
    if (!queue) throw new Error(`no local queue ${name}`);
    return queue;
  };
  return {
    endpoint,
    queueUrl: (name) => `${endpoint}/${ACCOUNT}/${queueNamed(name).definition.name}`,
    counts: (name) => ({ ...queueNamed(name).counts }),
    deadLetters: (name) => [...queueNamed(name).dead],
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inFlight]);
    },
  };
};
