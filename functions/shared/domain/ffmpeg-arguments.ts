import { presetConversion, type TranscodePreset } from './transcode-presets';

/**
 * ffmpeg's arguments of each preset, the one place they are written: the ffmpeg function runs them on AWS
 * for the audio-only presets (`functions/workers/transcode-audio`), and the local stack runs them for every
 * preset in MediaConvert's place. The preset's output parameters (`presetConversion`: video kept or not,
 * audio rate and channels) with ffmpeg's codec options for each preset.
 */

/** ffmpeg's H.264 options for a kept video stream. */
const X264 = ['-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p'];

/** ffmpeg's audio codec, its options and the container of each preset (between the input and the output). */
const PRESET_AUDIO: Record<TranscodePreset, string[]> = {
  mp4: ['-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', '-f', 'mp4'],
  ogg_opus: ['-c:a', 'libopus', '-b:a', '96k', '-f', 'ogg'],
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  flac_16k_mono: ['-c:a', 'flac', '-sample_fmt', 's16', '-f', 'flac'],
};

/**
 * ffmpeg arguments of a one-output conversion of `input` to `output`: the first video stream as H.264
 * (yuv420p) when `keepVideo`, else no video; the first audio stream resampled to `sampleRate` and
 * `channels`, then `audioArgs` (codec, its options, the container); no metadata carried over; progress
 * machine-readable on stdout (`runFfmpeg` reads it).
 */
export const ffmpegConversionArguments = (conversion: {
  input: string;
  output: string;
  keepVideo: boolean;
  sampleRate: number;
  channels: number;
  audioArgs: string[];
}): string[] => {
  const { input, output } = conversion;
  // `0:V:0`: the first video stream that is not an attached picture (cover art).
  const video = conversion.keepVideo
    ? [...['-map', '0:V:0', '-map', '0:a:0?', '-c:v', 'libx264'], ...X264]
    : ['-map', '0:a:0', '-vn'];
  return [
    ...['-hide_banner', '-nostdin', '-y', '-i', input, ...video],
    ...['-ar', String(conversion.sampleRate), '-ac', String(conversion.channels), ...conversion.audioArgs],
    ...['-map_metadata', '-1', '-progress', 'pipe:1', '-nostats', output],
  ];
};

/** ffmpeg arguments that convert `input` to `output` for `preset`, with machine-readable progress on stdout. */
export const ffmpegArguments = (
  preset: TranscodePreset,
  sourceHasVideo: boolean,
  input: string,
  output: string,
): string[] =>
  ffmpegConversionArguments({
    input,
    output,
    ...presetConversion(preset, sourceHasVideo),
    audioArgs: PRESET_AUDIO[preset],
  });
