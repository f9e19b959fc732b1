import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JobTransitionRefusedError } from '../../functions/shared/data/jobs/lifecycle';
import type { TranscodeJobRecord } from '../../functions/shared/data/transcode-jobs';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';
import type { AudioConversion } from '../../functions/workers/transcode/types';
import { convertAudio, START_MS } from '../../functions/workers/transcode-audio/convert';

/**
 * The ffmpeg function's writes to a job its Express probe left `probing` (decision 0055): none for a
 * conversion done within `START_MS`, else one move to `transcoding` with what the probe found; a refused move
 * stops ffmpeg. S3 is stubbed and ffmpeg replaced by a wait.
 */
vi.mock('../../functions/shared/aws/s3-objects', () => ({
  downloadObject: vi.fn(async (_bucket: string, _key: string, file: string) => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, 'source');
  }),
  uploadFile: vi.fn(async () => ({ size: 6, etag: 'e' })),
}));

/** The job's moves the function's reports make (through the worker shell's `recordEngineProgress`). */
const advance = vi.spyOn(transcodeJobs.moves, 'advance');
const progress = vi.spyOn(transcodeJobs.moves, 'progress');
const conversion: AudioConversion = {
  preset: 'ogg_opus',
  source: { bucket: 'b', fullPath: 'companies/co_1/in.wav' },
  output: { bucket: 'b', fullPath: 'companies/co_1/transcodes/tc_1/a1/output.ogg', contentType: 'audio/ogg' },
  durationSeconds: 60,
};
const probed = { hasVideo: false, engine: 'ffmpeg' as const };
const userMetadata = { companyId: 'co_1', jobId: 'tc_1', attempt: '1' };

/** ffmpeg taking `ms`, reporting 40 % on its way, and stopping when its signal aborts. */
const ffmpegTaking =
  (ms: number) =>
  (_args: string[], options: { signal: AbortSignal; onProgress?: (percent: number) => void }) =>
    new Promise<void>((resolve, reject) => {
      options.onProgress?.(40);
      const timer = setTimeout(resolve, ms);
      options.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(options.signal.reason);
      });
    });

const convert = (input: AudioConversion, ms: number) =>
  convertAudio(
    { conversion: input, userMetadata },
    { signal: new AbortController().signal, runFfmpeg: ffmpegTaking(ms) as never },
  );

beforeEach(() => {
  advance.mockResolvedValue({} as TranscodeJobRecord);
  progress.mockResolvedValue({} as TranscodeJobRecord);
});
afterEach(() => {
  advance.mockReset();
  progress.mockReset();
});

describe('the ffmpeg function on a job its probe left probing', () => {
  it('writes nothing to the job when the conversion is done within START_MS', async () => {
    await convert({ ...conversion, probed }, 10);
    expect(advance).not.toHaveBeenCalled();
    expect(progress).not.toHaveBeenCalled();
  });

  it('moves the job to transcoding with what the probe found once it has run START_MS', async () => {
    await convert({ ...conversion, probed }, START_MS + 300);
    expect(advance).toHaveBeenCalledTimes(1);
    expect(advance).toHaveBeenCalledWith({
      job: { companyId: 'co_1', jobId: 'tc_1', attempt: 1 },
      // `transcoding` too: a repeated invocation of the conversion finds its first report's move made.
      from: ['probing', 'transcoding'],
      to: 'transcoding',
      percent: 40,
      set: { durationSeconds: 60, hasVideo: false, engine: 'ffmpeg' },
      now: expect.any(Date),
    });
    expect(progress).not.toHaveBeenCalled();
  });

  it('stops ffmpeg when the job refuses that move (canceled or retried meanwhile)', async () => {
    advance.mockRejectedValue(new JobTransitionRefusedError('transcode', 'tc_1', 'transcoding'));
    await expect(convert({ ...conversion, probed }, 60_000)).rejects.toMatchObject({
      name: 'TranscodeJobGone',
    });
    expect(advance).toHaveBeenCalledTimes(1);
  });

  it('makes no start move for a job its probe moved to transcoding (the Standard machine)', async () => {
    await convert(conversion, START_MS + 300);
    expect(advance).not.toHaveBeenCalled();
    expect(progress).not.toHaveBeenCalled();
  });
});
