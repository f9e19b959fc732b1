import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FFMPEG, ffprobeFile, mediaProbeOf, runFfmpeg } from '../../functions/local/media-engine';
import { ffmpegArguments } from '../../functions/shared/domain/ffmpeg-arguments';
import {
  mediaConvertSettings,
  presetContentType,
  TRANSCODE_PRESETS,
  type TranscodePreset,
} from '../../functions/shared/domain/transcode-presets';
import { presetExpectation } from '../fixtures/transcode-expectations';

/** Every preset, run locally with ffmpeg on generated sources, checked with ffprobe against its table row. */
let dir: string;
const sources = { audio: '', video: '' };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-'));
  sources.audio = join(dir, 'tone.wav');
  sources.video = join(dir, 'clip.mkv');
  const q = ['-hide_banner', '-loglevel', 'error', '-y'];
  execFileSync(FFMPEG, [
    ...q,
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=44100:duration=3',
    sources.audio,
  ]);
  execFileSync(FFMPEG, [
    ...q,
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=320x240:rate=25:duration=2',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=660:sample_rate=44100:duration=2',
    '-c:v',
    'mpeg4',
    '-c:a',
    'pcm_s16le',
    '-shortest',
    sources.video,
  ]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const convert = async (preset: TranscodePreset, kind: 'audio' | 'video') => {
  const out = join(dir, `${preset}-${kind}.out`);
  const progress: number[] = [];
  await runFfmpeg(ffmpegArguments(preset, kind === 'video', sources[kind], out), {
    signal: new AbortController().signal,
    durationSeconds: kind === 'audio' ? 3 : 2,
    onProgress: (p) => progress.push(p),
  });
  return { probe: await ffprobeFile(out), progress };
};

describe('transcode presets', () => {
  it.each(
    TRANSCODE_PRESETS.flatMap((p) => [
      [p, 'audio'],
      [p, 'video'],
    ]) as [TranscodePreset, 'audio' | 'video'][],
  )('%s from an %s source gives the format of its row (ffprobe)', async (preset, kind) => {
    const { probe } = await convert(preset, kind);
    const expected = presetExpectation(preset, kind === 'video');
    expect(probe?.format?.format_name).toContain(expected.formatName);
    const audio = probe?.streams?.filter((s) => s.codec_type === 'audio') ?? [];
    const video = probe?.streams?.filter((s) => s.codec_type === 'video') ?? [];
    expect(audio).toHaveLength(1);
    expect(audio[0]?.codec_name).toBe(expected.audioCodec);
    expect(Number(audio[0]?.sample_rate)).toBe(expected.sampleRate);
    expect(audio[0]?.channels).toBe(expected.channels);
    if (expected.sampleFormat) expect(audio[0]?.sample_fmt).toBe(expected.sampleFormat);
    if (expected.videoCodec) {
      expect(video.map((s) => s.codec_name)).toEqual([expected.videoCodec]);
    } else {
      expect(video).toEqual([]);
    }
    expect(mediaProbeOf(probe).durationSeconds).toBeGreaterThan(1.5);
  });

  it('mp4 keeps video only when the source has it', () => {
    expect(presetContentType('mp4', true)).toBe('video/mp4');
    expect(presetContentType('mp4', false)).toBe('audio/mp4');
    expect(presetContentType('wav', true)).toBe('audio/wav');
    expect(ffmpegArguments('mp4', true, 'in', 'out')).toContain('libx264');
    expect(ffmpegArguments('wav', true, 'in', 'out')).toContain('-vn');
  });

  it.each([
    ['mp4', 'MP4', 'AAC'],
    ['ogg_opus', 'OGG', 'OPUS'],
    ['wav', 'RAW', 'WAV'],
    ['flac_16k_mono', 'RAW', 'FLAC'],
  ] as const)(
    '%s yields MediaConvert settings with container %s and codec %s',
    (preset, container, codec) => {
      const settings = mediaConvertSettings(
        preset,
        false,
        's3://b/companies/c/in.wav',
        's3://b/companies/c/out/output',
      );
      const group = (settings.OutputGroups as Record<string, unknown>[])[0] as {
        OutputGroupSettings: { FileGroupSettings: { Destination: string } };
        Outputs: {
          ContainerSettings: { Container: string };
          AudioDescriptions: { CodecSettings: { Codec: string } }[];
          VideoDescription?: unknown;
        }[];
      };
      expect(group.OutputGroupSettings.FileGroupSettings.Destination).toBe('s3://b/companies/c/out/output');
      expect(group.Outputs[0]?.ContainerSettings.Container).toBe(container);
      expect(group.Outputs[0]?.AudioDescriptions[0]?.CodecSettings.Codec).toBe(codec);
      expect(group.Outputs[0]?.VideoDescription).toBeUndefined();
      expect((settings.Inputs as { FileInput: string }[])[0]?.FileInput).toBe('s3://b/companies/c/in.wav');
    },
  );

  it('mp4 of a video source adds an H.264 video description to MediaConvert settings', () => {
    const settings = mediaConvertSettings('mp4', true, 's3://b/in.mkv', 's3://b/out/output') as {
      OutputGroups: { Outputs: { VideoDescription?: { CodecSettings: { Codec: string } } }[] }[];
    };
    expect(settings.OutputGroups[0]?.Outputs[0]?.VideoDescription?.CodecSettings.Codec).toBe('H_264');
  });

  it('reports progress and kills ffmpeg when aborted', async () => {
    const controller = new AbortController();
    const out = join(dir, 'aborted.wav');
    const run = runFfmpeg(
      [
        '-hide_banner',
        '-nostdin',
        '-y',
        '-re',
        '-f',
        'lavfi',
        '-i',
        'sine=duration=30',
        '-progress',
        'pipe:1',
        out,
      ],
      { signal: controller.signal, durationSeconds: 30 },
    );
    setTimeout(() => controller.abort(new Error('canceled')), 300);
    await expect(run).rejects.toThrow('canceled');
  });

  it('refuses a file that is not media as SourceUnreadable', async () => {
    const bogus = join(dir, 'bogus.bin');
    execFileSync('sh', ['-c', `head -c 4096 /dev/urandom > ${bogus}`]);
    expect(() => mediaProbeOf(undefined)).toThrow(expect.objectContaining({ name: 'SourceUnreadable' }));
    const probe = await ffprobeFile(bogus);
    expect(() => mediaProbeOf(probe)).toThrow(expect.objectContaining({ name: 'SourceUnreadable' }));
  });
});
