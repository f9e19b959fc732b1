import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('../../functions/shared/observability/metrics', async (original) => ({
  ...(await original<typeof import('../../functions/shared/observability/metrics')>()),
  countJobTransition: vi.fn(),
  countBilledUnits: vi.fn(),
}));

import { ddb } from '../../functions/shared/data/client';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';
import { countBilledUnits, countJobTransition } from '../../functions/shared/observability/metrics';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

/** Job transitions and billed units are counted where they are written, once each, and never when refused. */
const now = new Date('2026-01-02T03:04:05Z');
const job = transcodeJobRecord({}, now);
const ref = { companyId: job.companyId, jobId: job.jobId, attempt: job.attempt };
const properties = { companyId: job.companyId, jobId: job.jobId };

const { lifecycle, moves } = transcodeJobs;
const failTranscodeJob = moves.fail;

afterEach(() => vi.restoreAllMocks());

describe('transcode transition metrics', () => {
  it('counts enqueue, each move and the billed seconds of done', async () => {
    vi.spyOn(ddb, 'send').mockImplementation((async () => ({ Attributes: job })) as never);
    await lifecycle.createJob(job, 3);
    await moves.advance({ job: ref, from: ['transcoding'], to: 'finalizing', leaseUntil: now, now });
    const output = { bucket: 'b', fullPath: 'companies/co/o.wav', size: 1, contentType: 'audio/wav' };
    await moves.complete({
      job: ref,
      from: ['finalizing'],
      set: { output },
      billedUnits: 61,
      now,
    });
    expect(vi.mocked(countJobTransition).mock.calls).toEqual([
      ['transcode', 'pending', undefined, properties],
      ['transcode', 'finalizing', undefined, properties],
      ['transcode', 'done', undefined, properties],
    ]);
    expect(vi.mocked(countBilledUnits).mock.calls).toEqual([['transcode_seconds', 61, properties]]);
  });

  it('counts a failure with its code, and nothing for a refused transition', async () => {
    // The job is read (the failure's event carries it), then moved.
    vi.spyOn(ddb, 'send').mockImplementation((async () => ({ Item: job })) as never);
    await failTranscodeJob({ job: ref, error: { code: 'source_unreadable', message: 'x' }, now });
    expect(vi.mocked(countJobTransition).mock.calls.at(-1)).toEqual([
      'transcode',
      'failed',
      'source_unreadable',
      properties,
    ]);
    const calls = vi.mocked(countJobTransition).mock.calls.length;
    vi.spyOn(ddb, 'send').mockImplementation((async () => {
      throw Object.assign(new Error('refused'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
      });
    }) as never);
    await expect(
      failTranscodeJob({ job: ref, error: { code: 'timeout', message: 'x' }, now }),
    ).rejects.toThrow();
    expect(vi.mocked(countJobTransition).mock.calls.length).toBe(calls);
  });
});
