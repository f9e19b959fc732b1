import { afterEach, describe, expect, it, vi } from 'vitest';
import { runFfmpeg } from '../../functions/local/media-engine';
import { tasks } from '../../functions/local/step-functions/transcode-tasks';
import { presignRead, uploadFile } from '../../functions/shared/aws/s3-objects';
import { convertAudio } from '../../functions/workers/transcode-audio/convert';

const worker = vi.hoisted(() => vi.fn());
vi.mock('../../functions/workers/transcode/worker', () => ({ createTranscodeWorker: () => worker }));
vi.mock('../../functions/local/media-engine', () => ({ runFfmpeg: vi.fn(), probeWithFfprobe: vi.fn() }));
vi.mock('../../functions/shared/aws/s3-objects', () => ({ presignRead: vi.fn(), uploadFile: vi.fn() }));
vi.mock('../../functions/workers/transcode-audio/convert', () => ({ convertAudio: vi.fn() }));

const meta = {
  stateMachine: 'transcode',
  companyId: 'co_1',
  jobId: 'tj_1',
  attempt: '2',
  preset: 'wav',
  hasVideo: 'false',
  durationSeconds: '60',
};
const createJob = {
  Settings: {
    Inputs: [{ FileInput: 's3://b/companies/co_1/in.wav' }],
    OutputGroups: [
      {
        OutputGroupSettings: {
          FileGroupSettings: { Destination: 's3://b/companies/co_1/transcodes/tj_1/a2/output' },
        },
        Outputs: [{ Extension: 'wav' }],
      },
    ],
  },
  UserMetadata: meta,
};
const ctx = { signal: new AbortController().signal, executionArn: 'arn:local:execution:transcode:tj_1-a2' };

afterEach(() => {
  vi.useRealTimers();
  vi.resetAllMocks();
});

describe('local MediaConvert stand-in (ffmpeg)', () => {
  it("hands its progress to the worker's progress step as MediaConvert STATUS_UPDATE events, every 10 % and at most once a second", async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    vi.mocked(presignRead).mockResolvedValue('http://s3/in.wav');
    vi.mocked(runFfmpeg).mockImplementation(async (_args, options) => {
      vi.advanceTimersByTime(1000);
      options.onProgress?.(5); // less than 10 % on: not sent
      options.onProgress?.(20);
      options.onProgress?.(35); // within the second: not sent
      vi.advanceTimersByTime(1000);
      options.onProgress?.(40);
    });
    const answer = await tasks.Transcode?.(createJob, ctx);
    const event = (percent: number) => ({
      action: 'progress',
      detail: { status: 'STATUS_UPDATE', userMetadata: meta, jobProgress: { jobPercentComplete: percent } },
    });
    expect(worker.mock.calls).toEqual([[event(20)], [event(40)]]);
    expect(uploadFile).toHaveBeenCalledWith(
      'b',
      'companies/co_1/transcodes/tj_1/a2/output.wav',
      expect.stringMatching(/output\.wav$/),
      'audio/wav',
    );
    expect(answer).toMatchObject({ Job: { Status: 'COMPLETE', UserMetadata: meta } });
  });

  it("runs TranscodeAudio with the ffmpeg function's own module, the machine's ffmpeg and the execution's signal", async () => {
    const written = { size: 3, etag: 'e' };
    vi.mocked(convertAudio).mockResolvedValue({ timing: { StartTime: 1, FinishTime: 2 }, written });
    const input = { conversion: { preset: 'wav' }, userMetadata: meta };
    await expect(tasks.TranscodeAudio?.(input, ctx)).resolves.toEqual({
      timing: { StartTime: 1, FinishTime: 2 },
      written,
    });
    expect(convertAudio).toHaveBeenCalledWith(input, { signal: ctx.signal, runFfmpeg });
  });
});
