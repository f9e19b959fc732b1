/** ffmpeg's H.264 options for a kept video stream. */
const X264 = ['-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p'];

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
