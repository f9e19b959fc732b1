import { describe, expect, it } from 'vitest';
import { createJobLifecycle } from '../../functions/shared/data/jobs/lifecycle';
import { jobTransitionUpdate } from '../../functions/shared/data/jobs/transition';
import { transcodeReuseKey, transcodeStore } from '../../functions/shared/data/transcode-jobs';

const transcodeJobs = createJobLifecycle(transcodeStore);

describe('transcode keys (permanent: items exist under them)', () => {
  it('keeps job, queue and reuse items in the company transcode partition', () => {
    expect(transcodeJobs.jobKey('co_1', 'tc_1')).toEqual({ pk: 'CO#co_1#TRANSCODE', sk: 'JOB#tc_1' });
    expect(transcodeJobs.queueKey('co_1')).toEqual({ pk: 'CO#co_1#TRANSCODE', sk: 'QUEUE' });
    expect(
      transcodeJobs.reuseKey('co_1', transcodeReuseKey({ preset: 'wav', size: 42, etag: '"abc-2"' })),
    ).toEqual({
      pk: 'CO#co_1#TRANSCODE',
      sk: 'REUSE#wav#42#abc-2',
    });
  });

  it('indexes unfinished jobs of every company in one sparse partition', () => {
    expect(transcodeJobs.unfinishedIndexKey('co_1', 'tc_1')).toEqual({
      workpk: 'TRANSCODE#UNFINISHED',
      worksk: 'co_1#tc_1',
    });
  });
});

describe('jobTransitionUpdate', () => {
  it('conditions the write on the item, the from statuses, the observed attempt and any extra condition', () => {
    const update = jobTransitionUpdate({
      key: { pk: 'p', sk: 's' },
      from: ['failed', 'canceled'],
      attempt: 1,
      change: { set: { status: 'pending', attempt: 2 }, remove: ['leaseUntil'] },
      condition: { expression: 'leaseUntil <= :now', values: { ':now': 'then' } },
    });
    expect(update).toEqual({
      TableName: 'unit-table',
      Key: { pk: 'p', sk: 's' },
      UpdateExpression: 'SET #status = :set0, #attempt = :set1 REMOVE #leaseUntil',
      ConditionExpression:
        'attribute_exists(pk) AND #status IN (:from0, :from1) AND #attempt = :observedAttempt AND leaseUntil <= :now',
      ExpressionAttributeNames: { '#status': 'status', '#attempt': 'attempt', '#leaseUntil': 'leaseUntil' },
      ExpressionAttributeValues: {
        ':from0': 'failed',
        ':from1': 'canceled',
        ':observedAttempt': 1,
        ':now': 'then',
        ':set0': 'pending',
        ':set1': 2,
      },
    });
  });
});
