import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalQueues, startLocalQueues } from '../../functions/local/queues';

/**
 * The local stack's SQS endpoint and event source (`functions/local/queues.ts`), through the SDK's own client:
 * delays as SQS takes them, partial batch responses, redelivery after the visibility timeout, and dead letters.
 */
const handled: { body: string; receiveCount: number }[] = [];
/** The FIFO queue's handling: each message's start and end, in the order they happened. */
const fifoLog: string[] = [];
/** Bodies the FIFO handler fails once (the first receive), setting their visibility to 1 s. */
const failOnce = new Set<string>();
/** Bodies the FIFO handler reports failing while reporting the rest of the batch done. */
const failAlone = new Set<string>();
let queues: LocalQueues;
let client: SQSClient;

beforeAll(async () => {
  queues = await startLocalQueues({
    region: 'us-east-1',
    queues: [
      {
        name: 'work',
        handler: async () => async (event: SQSEvent) => {
          for (const r of event.Records)
            handled.push({ body: r.body, receiveCount: Number(r.attributes.ApproximateReceiveCount) });
          // A message whose body says `fail` is reported failing, the others are done.
          return {
            batchItemFailures: event.Records.filter((r) => r.body === 'fail').map((r) => ({
              itemIdentifier: r.messageId,
            })),
          };
        },
        visibilityTimeoutSeconds: 1,
        maxReceiveCount: 2,
        batchSize: 10,
        concurrency: 1,
      },
      {
        name: 'orders',
        fifo: true,
        handler: async () => async (event: SQSEvent) => {
          const failures: { itemIdentifier: string }[] = [];
          for (const r of event.Records) {
            fifoLog.push(`start ${r.body}`);
            await new Promise((resolve) => setTimeout(resolve, r.body.endsWith('slow') ? 300 : 10));
            fifoLog.push(`end ${r.body}`);
            if (failAlone.has(r.body)) {
              failAlone.delete(r.body);
              failures.push({ itemIdentifier: r.messageId });
            }
            if (failOnce.has(r.body)) {
              failOnce.delete(r.body);
              await client.send(
                new ChangeMessageVisibilityCommand({
                  QueueUrl: queues.queueUrl('orders'),
                  ReceiptHandle: r.receiptHandle,
                  VisibilityTimeout: 1,
                }),
              );
              failures.push({ itemIdentifier: r.messageId });
            }
          }
          return { batchItemFailures: failures };
        },
        // Far longer than the tests wait: a message comes back early only by its visibility change.
        visibilityTimeoutSeconds: 30,
        maxReceiveCount: 5,
        batchSize: 1,
        concurrency: 3,
      },
    ],
  });
  client = new SQSClient({
    region: 'us-east-1',
    endpoint: queues.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});
afterAll(() => queues.stop());

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((r) => setTimeout(r, 50));
};

const send = (body: string, DelaySeconds = 0) =>
  client.send(new SendMessageCommand({ QueueUrl: queues.queueUrl('work'), MessageBody: body, DelaySeconds }));

describe('local SQS queues', () => {
  it('hands a sent message to the worker once it is done', async () => {
    const { MessageId } = await send('ok');
    expect(MessageId).toBeTruthy();
    await until(() => handled.some((h) => h.body === 'ok'));
    await until(() => queues.counts('work').deletes > 0);
    expect(handled.filter((h) => h.body === 'ok')).toEqual([{ body: 'ok', receiveCount: 1 }]);
  });

  it('hands a failing message again after the visibility timeout, then moves it to the dead letters', async () => {
    await send('fail');
    await until(() => queues.deadLetters('work').length > 0);
    expect(handled.filter((h) => h.body === 'fail').map((h) => h.receiveCount)).toEqual([1, 2]);
    expect(queues.deadLetters('work')).toEqual([{ body: 'fail', receiveCount: 2 }]);
  });

  it('refuses a delay longer than 15 minutes, as SQS does', async () => {
    await expect(send('late', 901)).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    const before = queues.counts('work').sends;
    await send('later', 900);
    expect(queues.counts('work').sends).toBe(before + 1);
    expect(handled.some((h) => h.body === 'later')).toBe(false);
  });
});

const sendFifo = (body: string, group: string, dedup = body, DelaySeconds?: number) =>
  client.send(
    new SendMessageCommand({
      QueueUrl: queues.queueUrl('orders'),
      MessageBody: body,
      MessageGroupId: group,
      MessageDeduplicationId: dedup,
      ...(DelaySeconds === undefined ? {} : { DelaySeconds }),
    }),
  );

/** Sends `bodies` in order to the FIFO queue `name` of `target`, in group `group` (each body its own dedup id). */
const sendToGroup = async (target: LocalQueues, name: string, group: string, bodies: string[]) => {
  const sender = new SQSClient({
    region: 'us-east-1',
    endpoint: target.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  for (const body of bodies)
    await sender.send(
      new SendMessageCommand({
        QueueUrl: target.queueUrl(name),
        MessageBody: body,
        MessageGroupId: group,
        MessageDeduplicationId: body,
      }),
    );
};

describe('a local FIFO queue', () => {
  it('hands out a group in order with one message in flight, while other groups go on', async () => {
    await sendFifo('a1-slow', 'A');
    await sendFifo('a2', 'A');
    await sendFifo('b1', 'B');
    await until(() => fifoLog.includes('end a2') && fifoLog.includes('end b1'));
    // b1 ran beside a1; a2 waited for a1's end (a plain queue hands a2 out at once, beside a1).
    expect(fifoLog.indexOf('start b1')).toBeLessThan(fifoLog.indexOf('end a1-slow'));
    expect(fifoLog.indexOf('start a2')).toBeGreaterThan(fifoLog.indexOf('end a1-slow'));
  });

  it('sends a repeated de-duplication id of a group once within 5 minutes', async () => {
    const before = queues.counts('orders').sends;
    const first = await sendFifo('c1', 'C', 'same');
    const again = await sendFifo('c1 again', 'C', 'same');
    await sendFifo('d1', 'D', 'same');
    expect(again.MessageId).toBe(first.MessageId);
    await until(() => fifoLog.includes('end d1') && fifoLog.includes('end c1'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fifoLog.filter((l) => l.startsWith('start c1'))).toEqual(['start c1']);
    expect(queues.counts('orders').sends).toBe(before + 3);
  });

  it('keeps a failed message at its group head until its changed visibility ends, the group waiting behind it', async () => {
    failOnce.add('e1');
    await sendFifo('e1', 'E');
    await sendFifo('e2', 'E');
    await until(() => fifoLog.includes('end e2'));
    // e1 came back after its 1 s (not the queue's 30 s), and e2 only after e1 was done.
    expect(fifoLog.filter((l) => l.startsWith('start e'))).toEqual(['start e1', 'start e1', 'start e2']);
    expect(queues.counts('orders').visibilityChanges).toBeGreaterThan(0);
  });

  it('refuses a send without a group or with a per-message delay, as SQS does', async () => {
    await expect(
      client.send(new SendMessageCommand({ QueueUrl: queues.queueUrl('orders'), MessageBody: 'x' })),
    ).rejects.toMatchObject({ name: 'MissingParameter' });
    await expect(sendFifo('late', 'F', 'late', 5)).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  });
});

describe('the FIFO batch rule', () => {
  let batched: LocalQueues;
  const seen: string[] = [];
  beforeAll(async () => {
    batched = await startLocalQueues({
      region: 'us-east-1',
      queues: [
        {
          name: 'batched',
          fifo: true,
          // Reports g1 failed and g2 (after it, in the same group and batch) done.
          handler: async () => async (event: SQSEvent) => {
            for (const r of event.Records) seen.push(r.body);
            const g1 = event.Records.find(
              (r) => r.body === 'g1' && seen.filter((b) => b === 'g1').length === 1,
            );
            return { batchItemFailures: g1 ? [{ itemIdentifier: g1.messageId }] : [] };
          },
          visibilityTimeoutSeconds: 1,
          maxReceiveCount: 5,
          batchSize: 10,
          concurrency: 1,
        },
      ],
    });
  });
  afterAll(() => batched.stop());

  it("keeps the later messages of a failed one's group in the queue, in order", async () => {
    await sendToGroup(batched, 'batched', 'G', ['g1', 'g2']);
    await until(() => seen.length >= 4);
    // g2 came again after g1 (a queue that deletes what the handler reported done hands g2 out once).
    expect(seen.slice(0, 4)).toEqual(['g1', 'g2', 'g1', 'g2']);
  });
});

describe('a durable local queue', () => {
  it('keeps its messages across a restart, those in flight at the stop handed out again at once', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = mkdtempSync(join(tmpdir(), 'local-queues-'));
    const seen: string[] = [];
    const start = (hang: boolean) =>
      startLocalQueues({
        region: 'us-east-1',
        dataDir,
        queues: [
          {
            name: 'kept',
            fifo: true,
            durable: true,
            // The first run's worker never finishes (a crash mid-batch); the second's does.
            handler: async () => async (event: SQSEvent) => {
              for (const r of event.Records) seen.push(r.body);
              if (hang) await new Promise((resolve) => setTimeout(resolve, 3000));
              return { batchItemFailures: [] };
            },
            visibilityTimeoutSeconds: 30,
            maxReceiveCount: 5,
            batchSize: 1,
            concurrency: 1,
          },
        ],
      });
    const first = await start(true);
    await sendToGroup(first, 'kept', 'K', ['k1', 'k2']);
    await until(() => seen.includes('k1'));
    // Stopped with k1 in flight (its worker hangs) and k2 queued: nothing of either is lost.
    const stopping = first.stop();
    const second = await start(false);
    try {
      await until(() => seen.includes('k2'));
      expect(seen).toEqual(['k1', 'k1', 'k2']);
    } finally {
      await second.stop();
      void stopping;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 20_000);
});
