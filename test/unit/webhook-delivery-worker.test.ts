import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The delivery worker's batch rule (`functions/workers/webhook-delivery`), without a queue or a table: each
 * message's attempt is scripted by its event id, and the visibility changes are recorded.
 */
const { outcomes, attempted, hidden } = vi.hoisted(() => ({
  outcomes: new Map<string, { outcome: string; retryInSeconds?: number } | Error>(),
  attempted: [] as string[],
  hidden: [] as { handles: string[]; seconds: number }[],
}));
vi.mock('../../functions/shared/domain/events/delivery', () => ({
  attemptDelivery: async ({ eventId }: { eventId: string }) => {
    attempted.push(eventId);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const outcome = outcomes.get(eventId) ?? { outcome: 'delivered' };
    if (outcome instanceof Error) throw outcome;
    return outcome;
  },
}));
vi.mock('../../functions/shared/aws/queues', () => ({
  hideMessages: async (_queue: string, handles: string[], seconds: number) => {
    hidden.push({ handles, seconds });
  },
}));

const { handler } = await import('../../functions/workers/webhook-delivery/index');

const record = (group: string, eventId: string): SQSRecord =>
  ({
    messageId: `m-${eventId}`,
    receiptHandle: `h-${eventId}`,
    body: JSON.stringify({ companyId: 'co_1', endpointId: 'we_1', resourceId: group, eventId }),
    attributes: { MessageGroupId: group, ApproximateReceiveCount: '1' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:webhook-delivery.fifo',
    awsRegion: 'us-east-1',
  }) as unknown as SQSRecord;

const run = async (records: SQSRecord[]) => {
  const answer = (await handler({ Records: records } as SQSEvent, {} as Context)) as {
    batchItemFailures: { itemIdentifier: string }[];
  };
  return answer.batchItemFailures.map((f) => f.itemIdentifier).sort();
};

beforeEach(() => {
  outcomes.clear();
  attempted.length = 0;
  hidden.length = 0;
});

describe('the webhook delivery worker', () => {
  it('keeps a delivery to retry at its group head, hiding it and its group’s later messages for the backoff', async () => {
    outcomes.set('a1', { outcome: 'retry', retryInSeconds: 30 });
    const failed = await run([record('A', 'a1'), record('B', 'b1'), record('A', 'a2'), record('A', 'a3')]);
    expect(failed).toEqual(['m-a1', 'm-a2', 'm-a3']);
    // a2 and a3 wait behind a1 (not tried); the other group went on.
    expect(attempted.sort()).toEqual(['a1', 'b1']);
    expect(hidden).toEqual([{ handles: ['h-a1', 'h-a2', 'h-a3'], seconds: 30 }]);
  });

  it('hides a message back before its retry is due for the rest of the wait', async () => {
    outcomes.set('c1', { outcome: 'wait', retryInSeconds: 12 });
    expect(await run([record('C', 'c1')])).toEqual(['m-c1']);
    expect(hidden).toEqual([{ handles: ['h-c1'], seconds: 12 }]);
  });

  it('fails the rest of a group after a message whose handling threw, leaving their visibility as it is', async () => {
    outcomes.set('d2', new Error('throttled'));
    const failed = await run([record('D', 'd1'), record('D', 'd2'), record('D', 'd3'), record('E', 'e1')]);
    expect(failed).toEqual(['m-d2', 'm-d3']);
    expect(attempted.sort()).toEqual(['d1', 'd2', 'e1']);
    expect(hidden).toEqual([]);
  });

  it('handles a group in order, one message after another, and drops a message that is not a delivery', async () => {
    const bad = { ...record('F', 'f0'), body: 'not json' };
    expect(await run([bad, record('F', 'f1'), record('F', 'f2')])).toEqual([]);
    expect(attempted).toEqual(['f1', 'f2']);
  });
});
