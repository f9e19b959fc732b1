import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobTransitionRefusedError } from '../../functions/shared/data/jobs/lifecycle';
import { billableSeconds } from '../../functions/shared/domain/compute-time';
import { jobErrorFor } from '../../functions/shared/domain/jobs/job-type';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';
import { finalizeStep } from '../../functions/workers/transcode/finalize';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

const readJob = vi.spyOn(transcodeJobs.lifecycle, 'getJob');
const completeTranscodeJob = vi.spyOn(transcodeJobs.moves, 'complete');
const errorFor = (name: string | undefined) => jobErrorFor(transcodeJobs, name);

const now = new Date('2026-03-04T05:06:07Z');
const ref = { companyId: 'co_1', jobId: 'tc_1', attempt: 1 };
const job = transcodeJobRecord(
  {
    ...ref,
    status: 'transcoding',
    preset: 'ogg_opus',
    source: { bucket: 'b', fullPath: 'companies/co_1/in.wav', size: 10, etag: 'job-etag' },
  },
  now,
);
const engineOutput = {
  bucket: 'b',
  fullPath: 'companies/co_1/transcodes/tc_1/a1/output.ogg',
  contentType: 'audio/ogg',
};
const head = vi.fn();
/** The probe's run time and MediaConvert's timing of a 2.5-second conversion (epoch seconds). */
const billedCompute = {
  workerMs: 40,
  engineTiming: { StartTime: 1_772_600_000, FinishTime: 1_772_600_002.5 },
};
const run = (
  extra: {
    source?: { size: number; etag: string };
    workerMs?: number;
    engineTiming?: { StartTime: number; FinishTime: number };
  } = { source: { size: 500, etag: 'probed' }, ...billedCompute },
) =>
  finalizeStep(
    { action: 'finalize', ...ref, durationSeconds: 2.2, output: engineOutput, ...extra },
    { probe: vi.fn(), head, now: () => now },
  );

beforeEach(() => {
  readJob.mockResolvedValue(job);
  completeTranscodeJob.mockResolvedValue({ set: {} });
  head.mockResolvedValue({ size: 77, etag: 'out-etag' });
});
afterEach(() => vi.resetAllMocks());

describe('transcode finalize step', () => {
  it('completes the job recording its output, billing whole seconds with its reuse entry, in one move', async () => {
    await expect(run()).resolves.toEqual(ref);
    expect(readJob).toHaveBeenCalledWith('co_1', 'tc_1');
    expect(head).toHaveBeenCalledWith(engineOutput.bucket, engineOutput.fullPath);
    const output = { ...engineOutput, size: 77 };
    expect(completeTranscodeJob).toHaveBeenCalledWith({
      job: ref,
      // `finalizing`: a job an execution of the earlier finalize moved there.
      from: ['probing', 'transcoding', 'finalizing'],
      set: { output, durationSeconds: 2.2 },
      billedUnits: 3,
      // The probe's run time plus this step's; the engine's start to finish.
      computeMs: { workers: expect.any(Number), media: 2500 },
      files: [{ ...output, etag: 'out-etag', createdAt: now.toISOString() }],
      reuse: {
        key: 'ogg_opus#500#probed',
        entry: { output, sourceJobId: 'tc_1', durationSeconds: 2.2, createdAt: now.toISOString() },
      },
      now,
    });
    expect(completeTranscodeJob.mock.calls[0]?.[0].computeMs?.workers).toBeGreaterThanOrEqual(40);
  });

  it("records the output as the ffmpeg function's PUT answered it, without a HEAD (0061)", async () => {
    const written = { size: 91, etag: 'put-etag' };
    await expect(
      finalizeStep(
        { action: 'finalize', ...ref, durationSeconds: 2.2, output: engineOutput, written, ...billedCompute },
        { probe: vi.fn(), head, now: () => now },
      ),
    ).resolves.toEqual(ref);
    expect(head).not.toHaveBeenCalled();
    expect(completeTranscodeJob.mock.calls[0]?.[0]).toMatchObject({
      set: { output: { ...engineOutput, size: 91 } },
      files: [{ ...engineOutput, size: 91, etag: 'put-etag' }],
    });
  });

  it('completes a job the Express probe left probing, recording what the probe found (0055)', async () => {
    readJob.mockResolvedValue({ ...job, status: 'probing' });
    await expect(
      finalizeStep(
        {
          action: 'finalize',
          ...ref,
          durationSeconds: 2.2,
          output: engineOutput,
          ...billedCompute,
          probed: { hasVideo: false, engine: 'ffmpeg' },
        },
        { probe: vi.fn(), head, now: () => now },
      ),
    ).resolves.toEqual(ref);
    expect(completeTranscodeJob).toHaveBeenCalledWith(
      expect.objectContaining({
        from: ['probing', 'transcoding', 'finalizing'],
        set: {
          output: { ...engineOutput, size: 77 },
          durationSeconds: 2.2,
          hasVideo: false,
          engine: 'ffmpeg',
        },
      }),
    );
  });

  it('ends as TranscodeJobGone, completing nothing, when the job is no longer transcoding', async () => {
    readJob.mockResolvedValue({ ...job, status: 'canceled' });
    await expect(run()).rejects.toMatchObject({ name: 'TranscodeJobGone' });
    expect(completeTranscodeJob).not.toHaveBeenCalled();
  });

  it('bills no media time when the execution passed no engine timing', async () => {
    await run({ source: { size: 500, etag: 'probed' } });
    expect(completeTranscodeJob.mock.calls[0]?.[0].computeMs?.media).toBe(0);
  });

  it("keys the reuse entry by the job's source when the execution passed no probed source", async () => {
    await run({});
    expect(completeTranscodeJob.mock.calls[0]?.[0].reuse?.key).toBe('ogg_opus#10#job-etag');
  });

  it('fails with transcode_failed when the engine wrote no output, completing nothing', async () => {
    head.mockResolvedValue(undefined);
    const error = await run().catch((e: Error) => e);
    expect(errorFor((error as Error).name).code).toBe('transcode_failed');
    expect(completeTranscodeJob).not.toHaveBeenCalled();
  });

  it('ends as TranscodeJobGone when the job was canceled before it could complete', async () => {
    completeTranscodeJob.mockRejectedValue(new JobTransitionRefusedError('transcode', 'tc_1', 'done'));
    await expect(run()).rejects.toMatchObject({ name: 'TranscodeJobGone' });
  });

  it.each([
    [0.2, 1],
    [3, 3],
    [3.01, 4],
  ])('bills %s seconds of media as %s seconds', (duration, billed) => {
    expect(billableSeconds(duration)).toBe(billed);
  });
});
