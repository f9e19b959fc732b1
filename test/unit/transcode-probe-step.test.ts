import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SourceUnreadableError } from '../../functions/shared/aws/mediaconvert';
import { headObject } from '../../functions/shared/aws/s3-objects';
import { JobTransitionRefusedError } from '../../functions/shared/data/jobs/lifecycle';
import type { TranscodeJobRecord } from '../../functions/shared/data/transcode-jobs';
import { companyLimits } from '../../functions/shared/domain/company-limits';
import { jobErrorFor } from '../../functions/shared/domain/jobs/job-type';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';
import { probeStep } from '../../functions/workers/transcode/probe';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

vi.mock('../../functions/shared/aws/s3-objects', () => ({ headObject: vi.fn() }));
vi.mock('../../functions/shared/domain/company-limits', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  companyLimits: vi.fn(),
}));

const { lifecycle, moves } = transcodeJobs;
/** The step's moves: its claim (to `probing`) and its move to `transcoding`, each a mock of its own. */
const claimTranscodeJob = vi.fn<(options: object) => Promise<TranscodeJobRecord>>();
const startTranscoding = vi.fn<(options: object) => Promise<TranscodeJobRecord>>();
const advance = vi.spyOn(moves, 'advance');
const completeReusedTranscodeJob = vi.spyOn(moves, 'completeReused');
const getTranscodeJob = vi.spyOn(lifecycle, 'getJob');
const getTranscodeReuse = vi.spyOn(lifecycle, 'getReuse');
const transcodeLimits = vi.mocked(companyLimits);
const refused = (to: string) => new JobTransitionRefusedError('transcode', 'tc_1', to);
const errorFor = (name: string | undefined) => jobErrorFor(transcodeJobs, name);

const now = new Date('2026-03-04T05:06:07Z');
const ref = { companyId: 'co_1', jobId: 'tc_1', attempt: 2 };
const executionArn = 'arn:aws:states:eu-west-1:123456789012:execution:TranscodeMachine:tc_1-a2';
const job = transcodeJobRecord(
  {
    ...ref,
    status: 'probing',
    source: { bucket: 'b', fullPath: 'companies/co_1/in.mp4', size: 10, etag: 'e1' },
  },
  now,
);
const limits = { transcodeMaxSourceBytes: 1000, transcodeMaxDurationSeconds: 60 };
const probe = vi.fn();
const run = () => probeStep({ action: 'probe', ...ref, executionArn }, { probe, now: () => now });

/** The job error code the fail step records for what the probe step threw. */
const codeOf = async (step: Promise<unknown>) => {
  const error = await step.then(
    () => undefined,
    (e: Error) => e,
  );
  return errorFor(error?.name).code;
};

beforeEach(() => {
  advance.mockImplementation(({ to, ...options }) =>
    to === 'probing' ? claimTranscodeJob(options) : startTranscoding(options),
  );
  completeReusedTranscodeJob.mockResolvedValue({ set: {} });
  vi.mocked(claimTranscodeJob).mockResolvedValue(job);
  vi.mocked(startTranscoding).mockResolvedValue({ ...job, status: 'transcoding' });
  vi.mocked(headObject).mockResolvedValue({ size: 500, etag: 'e2' } as never);
  vi.mocked(getTranscodeReuse).mockResolvedValue(undefined);
  vi.mocked(transcodeLimits).mockResolvedValue(limits as never);
  probe.mockResolvedValue({ durationSeconds: 12.5, hasVideo: false, hasAudio: true });
});
afterEach(() => vi.resetAllMocks());

describe('transcode probe step', () => {
  it('claims the job with the probe lease, moves it to transcoding and returns the engine input', async () => {
    const result = await run();
    expect(claimTranscodeJob).toHaveBeenCalledWith({
      job: ref,
      from: ['pending'],
      leaseUntil: new Date(now.getTime() + 300_000),
      executionArn,
      now,
    });
    expect(startTranscoding).toHaveBeenCalledWith({
      job: ref,
      from: ['probing'],
      leaseUntil: new Date(now.getTime() + 7_800_000),
      percent: 0,
      set: { durationSeconds: 12.5, hasVideo: false, engine: 'ffmpeg' },
      now,
    });
    expect(getTranscodeReuse).toHaveBeenCalledWith('co_1', 'wav#500#e2');
    expect(result).toMatchObject({
      ...ref,
      reused: false,
      source: { size: 500, etag: 'e2' },
      durationSeconds: 12.5,
      output: {
        bucket: 'b',
        fullPath: 'companies/co_1/transcodes/tc_1/a2/output.wav',
        contentType: 'audio/wav',
      },
      userMetadata: {
        stateMachine: 'TranscodeMachine',
        companyId: 'co_1',
        jobId: 'tc_1',
        attempt: '2',
        preset: 'wav',
        hasVideo: 'false',
        durationSeconds: '12.5',
      },
    });
    // A 12.5 s wav is an audio-only conversion within the ffmpeg function's bounds: its input, not MediaConvert's.
    expect(result).toMatchObject({
      engine: 'ffmpeg',
      conversion: {
        preset: 'wav',
        source: { bucket: 'b', fullPath: job.source.fullPath },
        output: result.output,
        durationSeconds: 12.5,
      },
    });
    expect(result.settings).toBeUndefined();
  });

  it('leaves a source longer than the ffmpeg bounds to MediaConvert, with its job settings', async () => {
    vi.mocked(transcodeLimits).mockResolvedValue({
      ...limits,
      transcodeMaxDurationSeconds: 4 * 3600,
    } as never);
    probe.mockResolvedValue({ durationSeconds: 3 * 3600, hasVideo: false, hasAudio: true });
    const result = await run();
    expect(startTranscoding).toHaveBeenCalledWith(
      expect.objectContaining({
        set: { durationSeconds: 3 * 3600, hasVideo: false, engine: 'mediaconvert' },
      }),
    );
    expect(result).toMatchObject({ engine: 'mediaconvert' });
    expect(result.settings).toBeTruthy();
    expect(result.conversion).toBeUndefined();
  });

  it('finishes the job with the stored output of the same content converted before, billing nothing', async () => {
    const output = {
      bucket: 'b',
      fullPath: 'companies/co_1/transcodes/tc_0/a1/output.wav',
      size: 9,
      contentType: 'audio/wav',
    };
    vi.mocked(getTranscodeReuse).mockResolvedValue({
      output,
      sourceJobId: 'tc_0',
      durationSeconds: 3,
      createdAt: 'x',
    });
    await expect(run()).resolves.toEqual({ ...ref, reused: true });
    expect(completeReusedTranscodeJob).toHaveBeenCalledWith({
      job: ref,
      from: ['probing'],
      set: { output },
      now,
    });
    // The media was probed meanwhile; its answer is dropped.
    expect(startTranscoding).not.toHaveBeenCalled();
  });

  it('converts again when the reused output is no longer stored', async () => {
    const output = { bucket: 'b', fullPath: 'companies/co_1/gone.wav', size: 9, contentType: 'audio/wav' };
    vi.mocked(getTranscodeReuse).mockResolvedValue({
      output,
      sourceJobId: 'tc_0',
      durationSeconds: 3,
      createdAt: 'x',
    });
    vi.mocked(headObject).mockImplementation((async (_bucket: string, fullPath: string) =>
      fullPath === output.fullPath ? undefined : { size: 500, etag: 'e2' }) as never);
    await expect(run()).resolves.toMatchObject({ reused: false });
    expect(completeReusedTranscodeJob).not.toHaveBeenCalled();
  });

  it('fails with source_missing when the source no longer exists', async () => {
    vi.mocked(headObject).mockResolvedValue(undefined);
    expect(await codeOf(run())).toBe('source_missing');
    expect(startTranscoding).not.toHaveBeenCalled();
  });

  it("fails with source_too_large over the plan's size limit, whatever the probe answers", async () => {
    vi.mocked(headObject).mockResolvedValue({ size: 1001, etag: 'e2' } as never);
    probe.mockRejectedValue(new SourceUnreadableError('not read'));
    expect(await codeOf(run())).toBe('source_too_large');
    expect(startTranscoding).not.toHaveBeenCalled();
  });

  it('heads and probes the source the execution carries while it claims the job', async () => {
    let claimed: (value: TranscodeJobRecord) => void = () => undefined;
    vi.mocked(claimTranscodeJob).mockReturnValue(new Promise((resolve) => (claimed = resolve)));
    const step = probeStep(
      { action: 'probe', ...ref, executionArn, enqueued: { source: job.source } },
      { probe, now: () => now },
    );
    await vi.waitFor(() => expect(probe).toHaveBeenCalledWith(job.source));
    expect(headObject).toHaveBeenCalledWith('b', 'companies/co_1/in.mp4');
    expect(getTranscodeReuse).not.toHaveBeenCalled();
    claimed(job);
    await expect(step).resolves.toMatchObject({ reused: false, durationSeconds: 12.5 });
    expect(probe).toHaveBeenCalledTimes(1);
    expect(headObject).toHaveBeenCalledTimes(1);
  });

  it('fails with source_missing, not the probe’s error, when the source is gone', async () => {
    vi.mocked(headObject).mockResolvedValue(undefined);
    probe.mockRejectedValue(new SourceUnreadableError('gone'));
    expect(await codeOf(run())).toBe('source_missing');
  });

  it("fails with source_too_long over the plan's duration limit", async () => {
    probe.mockResolvedValue({ durationSeconds: 60.5, hasVideo: true, hasAudio: true });
    expect(await codeOf(run())).toBe('source_too_long');
    expect(startTranscoding).not.toHaveBeenCalled();
  });

  it('fails with source_unreadable when the prober cannot read the media', async () => {
    probe.mockRejectedValue(new SourceUnreadableError('no streams'));
    expect(await codeOf(run())).toBe('source_unreadable');
    expect(startTranscoding).not.toHaveBeenCalled();
  });

  it('ends as TranscodeJobGone without writing when the job was canceled', async () => {
    vi.mocked(claimTranscodeJob).mockRejectedValue(refused('probing'));
    vi.mocked(getTranscodeJob).mockResolvedValue({ ...job, status: 'canceled' });
    await expect(run()).rejects.toMatchObject({ name: 'TranscodeJobGone' });
    expect(startTranscoding).not.toHaveBeenCalled();
    expect(completeReusedTranscodeJob).not.toHaveBeenCalled();
  });

  it('continues when a repeated invocation finds its own attempt already transcoding', async () => {
    vi.mocked(claimTranscodeJob).mockRejectedValue(refused('probing'));
    vi.mocked(startTranscoding).mockRejectedValue(refused('transcoding'));
    vi.mocked(getTranscodeJob).mockResolvedValue({ ...job, status: 'transcoding' });
    await expect(run()).resolves.toMatchObject({ reused: false, durationSeconds: 12.5 });
  });
});

describe('transcode probe step on the Express audio machine', () => {
  const machine = 'arn:aws:states:eu-west-1:123456789012:stateMachine:transcode';
  const expressArn = 'arn:aws:states:eu-west-1:123456789012:express:transcode-audio:tc_1-a2:4f1c';
  const enqueued = { source: { bucket: 'b', fullPath: 'companies/co_1/in.mp4' } };
  const runExpress = () =>
    probeStep(
      { action: 'probe', ...ref, executionArn: expressArn, handoff: machine, enqueued },
      { probe, now: () => now },
    );
  beforeEach(() => {
    vi.mocked(claimTranscodeJob).mockResolvedValue({ ...job, preset: 'ogg_opus' });
    vi.mocked(transcodeLimits).mockResolvedValue({ ...limits, transcodeMaxDurationSeconds: 7200 } as never);
  });

  it('converts a source of at most 15 minutes here, holding the job for the machine’s 5 minutes', async () => {
    probe.mockResolvedValue({ durationSeconds: 900, hasVideo: false, hasAudio: true });
    const result = await runExpress();
    // The claim's lease is the conversion's: the machine's 5 minutes.
    expect(claimTranscodeJob).toHaveBeenCalledWith(
      expect.objectContaining({ from: ['pending'], leaseUntil: new Date(now.getTime() + 300_000) }),
    );
    expect(result).toMatchObject({
      engine: 'ffmpeg',
      conversion: { preset: 'ogg_opus', durationSeconds: 900 },
    });
    expect(result).not.toHaveProperty('handoff');
  });

  it('leaves the job probing, passing what it found on to the conversion and finalize (0055)', async () => {
    probe.mockResolvedValue({ durationSeconds: 60, hasVideo: false, hasAudio: true });
    const result = await runExpress();
    // One write, the claim: the move to `transcoding` is the conversion's first report, or finalize's.
    expect(claimTranscodeJob).toHaveBeenCalledTimes(1);
    expect(startTranscoding).not.toHaveBeenCalled();
    expect(advance).toHaveBeenCalledTimes(1);
    expect(result.conversion).toEqual({
      preset: 'ogg_opus',
      source: enqueued.source,
      output: result.output,
      durationSeconds: 60,
      probed: { hasVideo: false, engine: 'ffmpeg' },
    });
  });

  it('hands a longer source to the Standard execution of the same name, recorded on the job', async () => {
    probe.mockResolvedValue({ durationSeconds: 901, hasVideo: false, hasAudio: true });
    const result = await runExpress();
    expect(startTranscoding).toHaveBeenCalledWith(
      expect.objectContaining({
        from: ['probing'],
        executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:transcode:tc_1-a2',
        leaseUntil: new Date(now.getTime() + 7_800_000),
      }),
    );
    expect(result).toEqual({
      ...ref,
      reused: false,
      handoff: { name: 'tc_1-a2', input: { ...ref, ...enqueued } },
    });
  });
});
