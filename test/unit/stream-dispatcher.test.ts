import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';

// No database here: each endpoint lookup, delivery and message is recorded, and a resource can be made
// to fail.
const { dispatched, failing } = vi.hoisted(() => ({
  dispatched: [] as string[],
  failing: new Set<string>(),
}));
vi.mock('../../functions/shared/data/webhook-endpoints', () => ({
  getEndpoint: async () => undefined,
  listEndpoints: async () => [
    { id: 'ep_1', status: 'enabled', events: ['*'], createdAt: '2000-01-01T00:00:00.000Z' },
  ],
}));
vi.mock('../../functions/shared/data/webhook-deliveries', () => ({
  createDelivery: async ({ target, eventId }: { target: { resourceId: string }; eventId: string }) => {
    // The slow first event of a resource shows that a later event of it never overtakes it.
    if (eventId.endsWith('_slow')) await new Promise((resolve) => setTimeout(resolve, 20));
    if (failing.has(eventId)) throw new Error(`delivery of ${eventId} not created`);
    dispatched.push(`${target.resourceId}:${eventId}`);
    return { state: 'created', round: 0 };
  },
}));
vi.mock('../../functions/shared/domain/events/delivery-queue', () => ({
  sendDelivery: async () => undefined,
}));
// Workflows started by events have tests of their own (`test/integration/workflow-triggers*.test.ts`).
vi.mock('../../functions/shared/domain/workflows/trigger-sources', () => ({ startEventRuns: async () => 0 }));

const { handler } = await import('../../functions/workers/event-dispatcher/index');

const eventRecord = (sequence: string, id: string, resourceId: string): DynamoDBRecord => {
  const image = {
    pk: 'CO#co_1#EVENT',
    sk: `EV#${id}`,
    entity: 'event',
    id,
    companyId: 'co_1',
    type: 'transcode.done',
    resourceId,
    createdAt: '2026-11-25T00:00:00.000Z',
    data: '{}',
  };
  return {
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: sequence,
      Keys: marshall({ pk: image.pk, sk: image.sk }) as never,
      NewImage: marshall(image) as never,
    },
  };
};

const batch = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

beforeEach(() => {
  dispatched.length = 0;
  failing.clear();
});

describe('the stream dispatcher (Powertools Batch, partial batch response)', () => {
  it('answers no failure when every record is handled', async () => {
    const answer = await handler(batch(eventRecord('1', 'evt_a', 'tc_1'), eventRecord('2', 'evt_b', 'tc_2')));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(dispatched.sort()).toEqual(['tc_1:evt_a', 'tc_2:evt_b']);
  });

  it('reports the earliest failed record alone, and handles the good records of other resources', async () => {
    failing.add('evt_b');
    failing.add('evt_d');
    const answer = await handler(
      batch(
        eventRecord('1', 'evt_a', 'tc_1'),
        eventRecord('2', 'evt_b', 'tc_2'),
        eventRecord('3', 'evt_c', 'tc_3'),
        eventRecord('4', 'evt_d', 'tc_4'),
      ),
    );
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(dispatched.sort()).toEqual(['tc_1:evt_a', 'tc_3:evt_c']);
  });

  it("keeps a resource's events in order: a later event waits for an earlier one that failed", async () => {
    failing.add('evt_a');
    const answer = await handler(
      batch(
        eventRecord('1', 'evt_x', 'tc_2'),
        eventRecord('2', 'evt_a', 'tc_1'),
        eventRecord('3', 'evt_b', 'tc_1'),
        eventRecord('4', 'evt_y', 'tc_2'),
      ),
    );
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '2' }] });
    expect(dispatched).toEqual(['tc_2:evt_x', 'tc_2:evt_y']);
  });

  it("dispatches a resource's events in the stream's order, whatever each one takes", async () => {
    await handler(batch(eventRecord('1', 'evt_1_slow', 'tc_1'), eventRecord('2', 'evt_2', 'tc_1')));
    expect(dispatched).toEqual(['tc_1:evt_1_slow', 'tc_1:evt_2']);
  });

  it('answers a batch whose every record failed with its first record, without throwing', async () => {
    failing.add('evt_a');
    failing.add('evt_b');
    const answer = await handler(batch(eventRecord('7', 'evt_a', 'tc_1'), eventRecord('8', 'evt_b', 'tc_2')));
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '7' }] });
  });

  it('skips a record it cannot read and a record it does not act on', async () => {
    const unreadable = eventRecord('1', 'evt_bad', 'tc_1');
    const image = unreadable.dynamodb?.NewImage;
    if (image) image.data = { S: 'not JSON {' };
    const other: DynamoDBRecord = { eventName: 'REMOVE', dynamodb: { SequenceNumber: '2' } };
    const answer = await handler(batch(unreadable, other, eventRecord('3', 'evt_ok', 'tc_1')));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(dispatched).toEqual(['tc_1:evt_ok']);
  });
});
