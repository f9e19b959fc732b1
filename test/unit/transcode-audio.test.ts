import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FFMPEG, ffprobeFile } from '../../functions/local/media-engine';
import { downloadObject, uploadFile } from '../../functions/shared/aws/s3-objects';
import { ffmpegArguments } from '../../functions/shared/domain/ffmpeg-arguments';
import {
  EXPRESS_BOUNDS,
  FFMPEG_BOUNDS,
  fitsExpress,
  transcodeEngine,
  transcodeMachine,
} from '../../functions/shared/domain/transcode-presets';
import { runFfmpegBinary } from '../../functions/shared/media/ffmpeg-process';
import { handler } from '../../functions/workers/transcode-audio/index';
import { PROJECT_ROOT } from '../../lib/constructs/app-function';
import { FFMPEG_PACKAGE } from '../../lib/constructs/ffmpeg-layer';
import { presetExpectation } from '../fixtures/transcode-expectations';

/**
 * The ffmpeg function's handler on a generated WAV, with S3 stubbed (the source is copied in, the output
 * copied out) and the binary the layer carries (the npm package's) in place of `/opt/bin/ffmpeg`.
 */
const PACKAGED_FFMPEG = join(PROJECT_ROOT, 'node_modules', FFMPEG_PACKAGE, 'ffmpeg');

const s3 = vi.hoisted(() => ({ objects: new Map<string, string>() }));
vi.mock('../../functions/shared/aws/s3-objects', () => ({
  downloadObject: vi.fn(async (bucket: string, key: string, file: string) => {
    const { copyFileSync: copy } = await import('node:fs');
    const stored = s3.objects.get(`${bucket}/${key}`);
    if (!stored) throw new Error(`NoSuchKey ${key}`);
    copy(stored, file);
  }),
  uploadFile: vi.fn(async (bucket: string, key: string, file: string) => {
    const { copyFileSync: copy, statSync } = await import('node:fs');
    const kept = `${file}.uploaded`.replace(/.*\//, `${s3.objects.get('dir')}/`);
    copy(file, kept);
    s3.objects.set(`${bucket}/${key}`, kept);
    return { size: statSync(kept).size, etag: 'e' };
  }),
}));
const binaries = vi.hoisted(() => ({ used: [] as string[] }));
vi.mock('../../functions/shared/media/ffmpeg-process', async (original) => {
  const actual = await original<typeof import('../../functions/shared/media/ffmpeg-process')>();
  return {
    ...actual,
    runFfmpegBinary: (binary: string, args: string[], options: never) => {
      binaries.used.push(binary);
      return actual.runFfmpegBinary(PACKAGED_FFMPEG, args, options);
    },
  };
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'transcode-audio-'));
  s3.objects.set('dir', dir);
  const source = join(dir, 'tone.wav');
  execFileSync(FFMPEG, [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi'],
    ...['-i', 'sine=frequency=440:sample_rate=44100:duration=3', source],
  ]);
  s3.objects.set('b/companies/co_1/uploads/tone.wav', source);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const context = { getRemainingTimeInMillis: () => 900_000 } as unknown as Context;

describe('the ffmpeg function (audio-only presets)', () => {
  it.each(['ogg_opus', 'wav', 'flac_16k_mono'] as const)(
    'converts a WAV to %s with the packaged ffmpeg, writing the output where the probe put it',
    async (preset) => {
      const fullPath = `companies/co_1/transcodes/tc_1/a1/output.${preset}`;
      const answer = await handler(
        {
          conversion: {
            preset,
            source: { bucket: 'b', fullPath: 'companies/co_1/uploads/tone.wav' },
            output: { bucket: 'b', fullPath, contentType: 'audio/x' },
            durationSeconds: 3,
          },
          userMetadata: { stateMachine: 'transcode', companyId: 'co_1', jobId: 'tc_1', attempt: '1' },
        },
        context,
      );
      expect(binaries.used.at(-1)).toBe('/opt/bin/ffmpeg');
      expect(vi.mocked(downloadObject)).toHaveBeenCalledWith(
        'b',
        'companies/co_1/uploads/tone.wav',
        expect.any(String),
      );
      expect(vi.mocked(uploadFile)).toHaveBeenLastCalledWith('b', fullPath, expect.any(String), 'audio/x');
      const { StartTime, FinishTime } = answer.timing as { StartTime: number; FinishTime: number };
      expect(FinishTime).toBeGreaterThanOrEqual(StartTime);
      // The output as its PUT answered, for finalize to record without a HEAD (0061).
      expect(answer.written).toEqual({ size: expect.any(Number), etag: 'e' });
      const probe = await ffprobeFile(s3.objects.get(`b/${fullPath}`) as string);
      const expected = presetExpectation(preset, false);
      expect(probe?.format?.format_name).toContain(expected.formatName);
      const audio = probe?.streams?.filter((s) => s.codec_type === 'audio') ?? [];
      expect(audio.map((s) => [s.codec_name, Number(s.sample_rate), s.channels])).toEqual([
        [expected.audioCodec, expected.sampleRate, expected.channels],
      ]);
    },
  );

  it('fails with TranscodeEngineFailed (transcode_failed) when ffmpeg cannot decode the source', async () => {
    const bogus = join(dir, 'bogus.wav');
    execFileSync('sh', ['-c', `head -c 4096 /dev/urandom > ${bogus}`]);
    s3.objects.set('b/companies/co_1/uploads/bogus.wav', bogus);
    await expect(
      handler(
        {
          conversion: {
            preset: 'wav',
            source: { bucket: 'b', fullPath: 'companies/co_1/uploads/bogus.wav' },
            output: {
              bucket: 'b',
              fullPath: 'companies/co_1/transcodes/tc_2/a1/output.wav',
              contentType: 'a',
            },
            durationSeconds: 3,
          },
          userMetadata: { companyId: 'co_1', jobId: 'tc_2', attempt: '1' },
        },
        context,
      ),
    ).rejects.toMatchObject({ name: 'TranscodeEngineFailed' });
  });

  it('stops ffmpeg after the limitSeconds the Express machine gives, failing with TranscodeEngineFailed', async () => {
    await expect(
      handler(
        {
          conversion: {
            preset: 'ogg_opus',
            source: { bucket: 'b', fullPath: 'companies/co_1/uploads/tone.wav' },
            output: {
              bucket: 'b',
              fullPath: 'companies/co_1/transcodes/tc_3/a1/output.ogg',
              contentType: 'a',
            },
            durationSeconds: 3,
          },
          userMetadata: { companyId: 'co_1', jobId: 'tc_3', attempt: '1' },
          limitSeconds: 0,
        },
        context,
      ),
    ).rejects.toMatchObject({ name: 'TranscodeEngineFailed' });
  });

  it('starts audio-only presets within 512 MiB on the Express machine, and keeps 15 minutes of audio there', () => {
    expect(transcodeMachine('ogg_opus', EXPRESS_BOUNDS.sourceBytes)).toBe('transcode-audio');
    expect(transcodeMachine('wav', EXPRESS_BOUNDS.sourceBytes + 1)).toBe('transcode');
    expect(transcodeMachine('mp4', 1000)).toBe('transcode');
    const fits = { bytes: 1000, durationSeconds: EXPRESS_BOUNDS.durationSeconds };
    expect(fitsExpress('flac_16k_mono', fits)).toBe(true);
    expect(fitsExpress('flac_16k_mono', { ...fits, durationSeconds: fits.durationSeconds + 1 })).toBe(false);
    expect(fitsExpress('mp4', fits)).toBe(false);
  });

  it('runs the same arguments as the local engine, and leaves video and long sources to MediaConvert', async () => {
    const out = join(dir, 'direct.ogg');
    const source = s3.objects.get('b/companies/co_1/uploads/tone.wav') as string;
    copyFileSync(source, join(dir, 'copy.wav'));
    await runFfmpegBinary(PACKAGED_FFMPEG, ffmpegArguments('ogg_opus', false, join(dir, 'copy.wav'), out), {
      signal: new AbortController().signal,
      durationSeconds: 3,
    });
    expect((await ffprobeFile(out))?.streams?.[0]?.codec_name).toBe('opus');
    const small = { bytes: 1_000_000, durationSeconds: 60 };
    expect(transcodeEngine('ogg_opus', small)).toBe('ffmpeg');
    expect(transcodeEngine('wav', small)).toBe('ffmpeg');
    expect(transcodeEngine('flac_16k_mono', small)).toBe('ffmpeg');
    expect(transcodeEngine('mp4', small)).toBe('mediaconvert');
    expect(transcodeEngine('wav', { ...small, durationSeconds: FFMPEG_BOUNDS.durationSeconds + 1 })).toBe(
      'mediaconvert',
    );
    expect(transcodeEngine('wav', { ...small, bytes: FFMPEG_BOUNDS.sourceBytes + 1 })).toBe('mediaconvert');
  });
});
