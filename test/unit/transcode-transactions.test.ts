import { afterEach, describe, expect, it, vi } from 'vitest';
import { ddb } from '../../functions/shared/data/client';
import { JobQueueFullError } from '../../functions/shared/data/jobs/lifecycle';
import { CONFLICT_RETRIES } from '../../functions/shared/data/transactions';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

/**
 * DynamoDB cancels a transaction that touches an item another transaction is writing (the company's
 * QUEUE item, the usage month) with reason `TransactionConflict`, and the SDK does not retry that. DynamoDB
 * Local serialises transactions, so the conflict is injected here into the one client of the process.
 */
const canceled = (codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

const now = new Date('2026-01-02T03:04:05Z');
const job = transcodeJobRecord({}, now);
const output = {
  bucket: 'unit-bucket',
  fullPath: 'companies/co_unit/o.wav',
  size: 2,
  contentType: 'audio/wav',
};

/** Stubs the client: the first `conflicts` sends fail with a conflict on the queue item, later ones pass. */
const conflictThenPass = (conflicts: number, codes = ['None', 'TransactionConflict']) => {
  let calls = 0;
  return vi.spyOn(ddb, 'send').mockImplementation((async () => {
    calls += 1;
    if (calls <= conflicts) throw canceled(codes);
    return {};
  }) as never);
};

const { lifecycle, moves } = transcodeJobs;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('transcode job transactions retry TransactionConflict', () => {
  it.each([
    ['create', () => lifecycle.createJob(job, 5), undefined],
    [
      'finish (billed done)',
      async () => {
        await moves.complete({
          job,
          from: ['finalizing'],
          set: { output },
          billedUnits: 3,
          now,
        });
      },
      undefined,
    ],
    ['finish (cancel)', () => moves.cancel(job, now), { status: 'canceled', attempt: 1 }],
    ['retry', () => moves.retry(job, 5, now), { status: 'pending', attempt: 2 }],
  ])('%s succeeds after conflicts on the queue or usage item', async (_name, write, after) => {
    const send = conflictThenPass(2);
    const result = await write();
    if (after) expect(result).toMatchObject(after);
    else expect(result).toBeUndefined();
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('gives up after the first try and CONFLICT_RETRIES retries, and surfaces the cancellation', async () => {
    const send = conflictThenPass(100);
    await expect(lifecycle.createJob(job, 5)).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(send).toHaveBeenCalledTimes(CONFLICT_RETRIES + 1);
  });

  it('does not retry a cancellation that is a failed condition (a full queue)', async () => {
    const send = conflictThenPass(100, ['None', 'ConditionalCheckFailed']);
    await expect(lifecycle.createJob(job, 5)).rejects.toBeInstanceOf(JobQueueFullError);
    expect(send).toHaveBeenCalledTimes(1);
  });
});
