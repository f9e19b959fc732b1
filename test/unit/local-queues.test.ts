import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalQueues, startLocalQueues } from '../../functions/local/queues';

/**
 * The local stack's SQS endpoint and event source (`functions/local/queues.ts`), through the SDK's own client:
 * delays as SQS takes them, partial batch responses, redelivery after the visibility timeout, and dead letters.
 */
const handled: { body: string; receiveCount: number }[] = [];
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
