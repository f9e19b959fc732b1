import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startExecution } from '../../functions/shared/aws/step-functions';
import { getItemsByKey } from '../../functions/shared/data/batch';
import { getPlan } from '../../functions/shared/data/plans';
import { retryJob } from '../../functions/shared/domain/jobs/commands';
import { enqueueTranscode, transcodeJobs } from '../../functions/shared/domain/transcodes';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

vi.mock('../../functions/shared/aws/step-functions', () => ({
  startExecution: vi.fn(),
  stopExecution: vi.fn(),
}));
vi.mock('../../functions/shared/data/batch', () => ({ getItemsByKey: vi.fn() }));
vi.mock('../../functions/shared/data/plans', () => ({ getPlan: vi.fn() }));

const now = new Date('2026-03-04T05:06:07Z');
const company = { planId: 'plan_start_failed', limitOverrides: {} };
const plan = { limits: { transcodeSecondsPerMonth: 100, transcodeQueueCap: 5 } };
const stored = {
  bucket: 'unit-bucket',
  fullPath: 'companies/co_1/in.wav',
  size: 10,
  contentType: 'audio/wav',
  etag: 'e',
  createdAt: now.toISOString(),
};
const failed = transcodeJobRecord({ jobId: 'tc_1', companyId: 'co_1', status: 'failed' }, now);
const startFailed = { code: 'start_failed', message: 'The conversion could not be started; retry the job.' };

const createTranscodeJob = vi.spyOn(transcodeJobs.lifecycle, 'createJob');
const retryTranscodeJob = vi.spyOn(transcodeJobs.moves, 'retry');
const failTranscodeJob = vi.spyOn(transcodeJobs.moves, 'fail');

beforeEach(() => {
  vi.mocked(getPlan).mockResolvedValue(plan as never);
  createTranscodeJob.mockResolvedValue();
  failTranscodeJob.mockResolvedValue({ set: {} });
  vi.mocked(startExecution).mockRejectedValue(
    Object.assign(new Error('throttled'), { name: 'ThrottlingException' }),
  );
});
afterEach(() => vi.resetAllMocks());

describe('a transcode attempt whose execution does not start', () => {
  it('marks a new job failed with start_failed and answers 503 service_unavailable', async () => {
    vi.mocked(getItemsByKey).mockResolvedValue([company, undefined, undefined, { stored }] as never);
    await expect(
      enqueueTranscode('co_1', { fullPath: stored.fullPath, preset: 'wav' }, now),
    ).rejects.toMatchObject({ name: 'AppError', code: 'service_unavailable' });
    const job = createTranscodeJob.mock.calls[0]?.[0];
    expect(job).toMatchObject({ companyId: 'co_1', status: 'pending', attempt: 1 });
    expect(failTranscodeJob).toHaveBeenCalledWith({ job, error: startFailed, now });
  });

  it('marks the retried attempt failed with start_failed', async () => {
    const retried = { ...failed, status: 'pending' as const, attempt: 2 };
    vi.mocked(getItemsByKey).mockResolvedValue([company, undefined, undefined, failed] as never);
    retryTranscodeJob.mockResolvedValue(retried);
    await expect(retryJob(transcodeJobs, 'co_1', 'tc_1', now)).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    expect(retryTranscodeJob).toHaveBeenCalledWith(failed, 5, now);
    expect(failTranscodeJob).toHaveBeenCalledWith({ job: retried, error: startFailed, now });
  });

  it('still answers 503 when recording the failure fails too', async () => {
    vi.mocked(getItemsByKey).mockResolvedValue([company, undefined, undefined, { stored }] as never);
    failTranscodeJob.mockRejectedValue(new Error('table unavailable'));
    await expect(
      enqueueTranscode('co_1', { fullPath: stored.fullPath, preset: 'wav' }, now),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('treats an execution that already exists as started, writing no failure', async () => {
    vi.mocked(startExecution).mockRejectedValue(
      Object.assign(new Error('exists'), { name: 'ExecutionAlreadyExistsError' }),
    );
    vi.mocked(getItemsByKey).mockResolvedValue([company, undefined, undefined, { stored }] as never);
    await expect(
      enqueueTranscode('co_1', { fullPath: stored.fullPath, preset: 'wav' }, now),
    ).resolves.toMatchObject({
      status: 'pending',
    });
    expect(failTranscodeJob).not.toHaveBeenCalled();
  });
});
