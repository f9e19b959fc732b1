import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startExecution } from '../../functions/shared/aws/step-functions';
import { getItemsByKey } from '../../functions/shared/data/batch';
import { JobQueueFullError } from '../../functions/shared/data/jobs/lifecycle';
import { getPlan } from '../../functions/shared/data/plans';
import { enqueueTranscription, transcriptionJobs } from '../../functions/shared/domain/transcriptions';

vi.mock('../../functions/shared/aws/step-functions', () => ({ startExecution: vi.fn() }));
vi.mock('../../functions/shared/data/batch', () => ({ getItemsByKey: vi.fn() }));
vi.mock('../../functions/shared/data/plans', () => ({ getPlan: vi.fn() }));
const createJob = vi.spyOn(transcriptionJobs.lifecycle, 'createJob');
const failTranscriptionJob = vi.spyOn(transcriptionJobs.moves, 'fail');

const now = new Date('2026-03-04T05:06:07Z');
const company = { planId: 'plan_transcription_enqueue', limitOverrides: {} };
const plan = { limits: { transcriptionSecondsPerMonth: 100, transcriptionQueueCap: 3 } };
const stored = {
  bucket: 'unit-bucket',
  fullPath: 'companies/co_1/in.wav',
  size: 10,
  contentType: 'audio/wav',
  etag: 'e',
  createdAt: now.toISOString(),
};
const month = (seconds: number) => ({
  figure: (name: string) => (name === 'transcription_seconds' ? seconds : 0),
});
const enqueue = (language?: 'en-US' | 'auto') =>
  enqueueTranscription('co_1', { fullPath: stored.fullPath, ...(language ? { language } : {}) }, now);

beforeEach(() => {
  vi.mocked(getPlan).mockResolvedValue(plan as never);
  vi.mocked(getItemsByKey).mockResolvedValue([company, month(60), month(39), { stored }] as never);
  vi.mocked(startExecution).mockResolvedValue('arn');
  createJob.mockResolvedValue();
  failTranscriptionJob.mockResolvedValue({ set: {} });
});
afterEach(() => vi.resetAllMocks());

describe('enqueueing a transcription', () => {
  it('writes a pending en-US job under the queue cap and starts its execution named after the attempt', async () => {
    const job = await enqueue();
    expect(job).toMatchObject({
      companyId: 'co_1',
      status: 'pending',
      language: 'en-US',
      attempt: 1,
      source: { bucket: 'unit-bucket', fullPath: stored.fullPath, size: 10, etag: 'e' },
    });
    expect(job.jobId).toMatch(/^tr_/);
    expect(createJob).toHaveBeenCalledWith(job, 3);
    // The source travels in the execution's input: the first step reads it while it claims the job.
    expect(startExecution).toHaveBeenCalledWith('transcription', `${job.jobId}-a1`, {
      companyId: 'co_1',
      jobId: job.jobId,
      attempt: 1,
      source: job.source,
    });
  });

  it('accepts auto where the engine is Amazon Transcribe', async () => {
    await expect(enqueue('auto')).resolves.toMatchObject({ language: 'auto' });
  });

  it('answers 429 transcription_quota_exceeded with Retry-After once the month is used up', async () => {
    // 40 counted in the month item before the billing families, 60 in the family item: the month is used up.
    vi.mocked(getItemsByKey).mockResolvedValue([company, month(40), month(60), { stored }] as never);
    await expect(enqueue()).rejects.toMatchObject({
      code: 'transcription_quota_exceeded',
      retryAfterSeconds: expect.any(Number),
    });
    expect(createJob).not.toHaveBeenCalled();
  });

  it('answers 429 transcription_queue_full at the cap', async () => {
    createJob.mockRejectedValue(new JobQueueFullError('transcription'));
    await expect(enqueue()).rejects.toMatchObject({
      code: 'transcription_queue_full',
      retryAfterSeconds: 30,
    });
    expect(startExecution).not.toHaveBeenCalled();
  });

  it('answers 404 for a source that is not a stored object of the company', async () => {
    vi.mocked(getItemsByKey).mockResolvedValue([company, month(0)] as never);
    await expect(enqueue()).rejects.toMatchObject({ code: 'not_found' });
  });

  it('marks the job failed with start_failed and answers 503 when its execution does not start', async () => {
    vi.mocked(startExecution).mockRejectedValue(
      Object.assign(new Error('throttled'), { name: 'Throttling' }),
    );
    await expect(enqueue()).rejects.toMatchObject({ code: 'service_unavailable' });
    const job = createJob.mock.calls[0]?.[0];
    expect(failTranscriptionJob).toHaveBeenCalledWith({
      job,
      error: { code: 'start_failed', message: 'The transcription could not be started; enqueue it again.' },
      now,
    });
  });
});
