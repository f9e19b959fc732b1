import { describe, expect, it } from 'vitest';
import { createTenant, waitForSettled } from './support';
import { queueOf, reuseItemsOf, seedJob, transcodeSecondsOf } from './transcode-support';

/**
 * The job engine's conditional moves racing on DynamoDB Local: whatever order the writers reach the table
 * in, exactly one move into a final state wins per attempt, the queue slot is released once, and the meter,
 * the output's stored-object record and the reuse entry are written only if `done` won.
 */
describe('the job engine under racing writers', () => {
  it('resolves concurrent cancel, fail, complete and step moves to exactly one final state', async () => {
    const tenant = await createTenant();
    const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
    const { JobTransitionRefusedError } = await import('../../functions/shared/data/jobs/lifecycle');
    const { getStoredObject } = await import('../../functions/shared/data/stored-objects');
    const { moves, lifecycle } = transcodeJobs;
    const finals: string[] = [];
    const doneIds: string[] = [];
    for (let round = 0; round < 6; round++) {
      const job = await seedJob(tenant.companyId, 'transcoding');
      const ref = { companyId: job.companyId, jobId: job.jobId, attempt: job.attempt };
      const now = new Date();
      const fullPath = `companies/${tenant.companyId}/transcodes/${job.jobId}/a1/output.wav`;
      const output = { bucket: job.source.bucket, fullPath, size: 1, contentType: 'audio/wav' };
      const entry = { output, sourceJobId: job.jobId, durationSeconds: 3, createdAt: now.toISOString() };
      const writers = [
        () => moves.cancel(job, now),
        () => moves.fail({ job: ref, error: { code: 'internal', message: 'race' }, now }),
        () =>
          moves.complete({
            job: ref,
            from: ['transcoding'],
            set: { output },
            billedUnits: 3,
            files: [{ ...output, etag: 'e', createdAt: now.toISOString() }],
            reuse: { key: `race#${job.jobId}`, entry },
            now,
          }),
        () => moves.advance({ job: ref, from: ['transcoding'], to: 'finalizing', now }),
      ];
      // A different writer goes first each round.
      const order = writers.map((_, i) => writers[(i + round) % writers.length]);
      const results = await Promise.allSettled(order.map((write) => write?.()));
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(JobTransitionRefusedError);
      }
      const final = await lifecycle.getJob(ref.companyId, ref.jobId);
      expect(final?.leaseUntil).toBeUndefined();
      if (final?.status === 'finalizing') {
        // The step won first: every final move from `transcoding` was refused but fail and cancel (from the
        // observed state) may follow it; finish it as a worker would.
        await moves.fail({ job: ref, error: { code: 'internal', message: 'race' }, now });
      }
      const settled = await lifecycle.getJob(ref.companyId, ref.jobId);
      finals.push(String(settled?.status));
      if (settled?.status === 'done') doneIds.push(job.jobId);
      expect(['done', 'failed', 'canceled']).toContain(settled?.status);
      const recorded = await getStoredObject(tenant.companyId, fullPath);
      expect(recorded !== undefined).toBe(settled?.status === 'done');
    }
    const done = finals.filter((s) => s === 'done').length;
    for (const id of doneIds) await waitForSettled(tenant.apiKey, 'transcode.done', id);
    expect(await queueOf(tenant.companyId)).toBe(0);
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(3 * done);
    expect(await reuseItemsOf(tenant.companyId)).toHaveLength(done);
  });

  it('lets only one of two racing retries start the next attempt, taking one queue slot', async () => {
    const tenant = await createTenant();
    const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
    const failed = await seedJob(tenant.companyId, 'failed');
    const now = new Date();
    const results = await Promise.allSettled([
      transcodeJobs.moves.retry(failed, 5, now),
      transcodeJobs.moves.retry(failed, 5, now),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const job = await transcodeJobs.lifecycle.getJob(tenant.companyId, failed.jobId);
    expect(job).toMatchObject({ status: 'pending', attempt: 2 });
    expect(await queueOf(tenant.companyId)).toBe(1);
  });

  it('admits no job at a queue cap of 0, also for a company whose queue was never written', async () => {
    const tenant = await createTenant();
    const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
    const { JobQueueFullError } = await import('../../functions/shared/data/jobs/lifecycle');
    const { transcodeJobRecord } = await import('../fixtures/transcode-jobs');
    const { companyId } = tenant;
    const record = (jobId: string) => transcodeJobRecord({ companyId, jobId });
    await expect(transcodeJobs.lifecycle.createJob(record('tc_cap0_a'), 0)).rejects.toBeInstanceOf(
      JobQueueFullError,
    );
    expect(await transcodeJobs.lifecycle.getJob(companyId, 'tc_cap0_a')).toBeUndefined();
    await transcodeJobs.lifecycle.createJob(record('tc_cap1_a'), 1);
    await expect(transcodeJobs.lifecycle.createJob(record('tc_cap1_b'), 1)).rejects.toBeInstanceOf(
      JobQueueFullError,
    );
    expect(await queueOf(companyId)).toBe(1);
  });
});
