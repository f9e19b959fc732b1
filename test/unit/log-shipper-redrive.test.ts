import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type ParkedMessage,
  redriveParkedBatches,
  subscriptionEventOf,
} from '../../functions/log-shipper/redrive';
import type { AccessLogRecord } from '../../functions/shared/http/access-log';

/** A CloudWatch Logs subscription delivery of `lines`, as Lambda hands it to the shipper. */
const deliveryOf = (lines: string[]) => ({
  awslogs: {
    data: gzipSync(
      JSON.stringify({
        messageType: 'DATA_MESSAGE',
        logGroup: 'access-logs',
        logStream: 'stream',
        logEvents: lines.map((message, i) => ({ id: String(i), timestamp: 0, message })),
      }),
    ).toString('base64'),
  },
});

/** The record Lambda sends to an on-failure destination once an asynchronous invocation's retries run out. */
const failedInvocationOf = (lines: string[]) =>
  JSON.stringify({
    version: '1.0',
    timestamp: '2026-11-25T10:00:00.000Z',
    requestContext: {
      requestId: 'r-1',
      functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:shipper:$LATEST',
      condition: 'RetriesExhausted',
      approximateInvokeCount: 3,
    },
    requestPayload: deliveryOf(lines),
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: { errorType: 'ProvisionedThroughputExceededException', errorMessage: 'throttled' },
  });

const line = (requestId: string) => JSON.stringify({ requestId, companyId: 'co_1', status: 200 });

/** A queue holding `bodies`, handing out at most `max` per receive, recording what is removed. */
const fakeQueue = (bodies: string[]) => {
  const waiting: ParkedMessage[] = bodies.map((body, i) => ({ id: `m${i}`, body, receiptHandle: `h${i}` }));
  const removed: string[] = [];
  const receives: number[] = [];
  return {
    removed,
    receives,
    queue: {
      receive: async (max: number) => {
        receives.push(max);
        return waiting.splice(0, max);
      },
      remove: async (receiptHandle: string) => {
        removed.push(receiptHandle);
      },
    },
  };
};

describe('log shipper redrive', () => {
  it('reads the original subscription delivery from a failure destination record', () => {
    const event = subscriptionEventOf(failedInvocationOf([line('a')]));
    expect(event.awslogs.data).toBe(deliveryOf([line('a')]).awslogs.data);
  });

  it('refuses a message that is not a failed invocation of the shipper', () => {
    expect(() => subscriptionEventOf(JSON.stringify({ requestPayload: { Records: [] } }))).toThrow(
      /not a failed invocation/,
    );
  });

  it('ships every parked batch with the shipper code, then removes its message', async () => {
    const { queue, removed } = fakeQueue([
      failedInvocationOf([line('a'), line('b')]),
      failedInvocationOf([line('c'), 'not json']),
    ]);
    const shipped: AccessLogRecord[][] = [];
    const report = await redriveParkedBatches(queue, async (records) => {
      shipped.push(records);
      return records.length;
    });
    expect(shipped.map((batch) => batch.map((r) => r.requestId))).toEqual([['a', 'b'], ['c']]);
    expect(removed).toEqual(['h0', 'h1']);
    expect(report).toEqual({ messages: 2, redriven: 2, records: 3, shipped: 3, skipped: 1, failed: [] });
  });

  it('leaves a message on the queue when its batch cannot be shipped or read, and goes on with the others', async () => {
    const { queue, removed } = fakeQueue([
      failedInvocationOf([line('a')]),
      '{"something":"else"}',
      failedInvocationOf([line('b')]),
    ]);
    const report = await redriveParkedBatches(queue, async (records) => {
      if (records[0]?.requestId === 'a') throw new Error('table throttled');
      return records.length;
    });
    expect(removed).toEqual(['h2']);
    expect(report.redriven).toBe(1);
    expect(report.failed).toEqual([
      { messageId: 'm0', error: 'table throttled' },
      { messageId: 'm1', error: expect.stringMatching(/not a failed invocation/) },
    ]);
  });

  it('stops after the given number of messages, receiving no more than it may handle', async () => {
    const { queue, removed, receives } = fakeQueue(
      Array.from({ length: 15 }, (_, i) => failedInvocationOf([line(`r${i}`)])),
    );
    const report = await redriveParkedBatches(queue, async (records) => records.length, 12);
    expect(receives).toEqual([10, 2]);
    expect(removed).toHaveLength(12);
    expect(report.messages).toBe(12);
  });
});
