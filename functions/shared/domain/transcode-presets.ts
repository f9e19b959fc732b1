import { TRANSCODE_PRESETS, type TranscodePreset } from '../types/transcodes';

export { TRANSCODE_PRESETS, type TranscodePreset };

/**
 * Media transform presets: one table that yields both the MediaConvert output settings (on AWS) and the
 * ffmpeg arguments (local stack), plus what a correct output looks like (checked with ffprobe by the tests).
 *
 * Decisions (the spec names the presets only):
 * - Audio is always resampled to fixed, documented parameters so AWS and local outputs agree: 48 kHz stereo
 *   for `mp4`, `ogg_opus` and `wav`; 16 kHz mono for `flac_16k_mono`.
 * - `mp4` keeps the first video stream as H.264 (yuv420p) when the source has one; an audio-only source
 *   gives AAC in MP4 (no video track). Every other preset drops video.
 * - Outputs are written as `output.<extension>` under the job's attempt prefix.
 */

export interface PresetExpectation {
  /** ffprobe `format.format_name` contains this. */
  formatName: string;
  audioCodec: string;
  sampleRate: number;
  channels: number;
  /** `h264` when the source has video, absent for audio-only outputs. */
  videoCodec?: string;
  /** ffprobe `sample_fmt` for PCM-like outputs. */
  sampleFormat?: string;
}

interface PresetDefinition {
  extension: string;
  contentType: (hasVideo: boolean) => string;
  keepsVideo: boolean;
  /** The output's audio, and ffprobe's codec name (and sample format) of a correct output. */
  audio: { sampleRate: number; channels: number; codec: string; sampleFormat?: string };
  /** ffprobe `format.format_name` of a correct output contains this. */
  formatName: string;
  /** ffmpeg output options (between the input and the output file). */
  ffmpegAudio: string[];
  /** MediaConvert container settings, audio codec and its settings (`SampleRate` comes from `audio`). */
  mediaConvert: { container: Record<string, unknown>; codec: string; settings: Record<string, unknown> };
}

const AUDIO_SELECTOR = 'Audio Selector 1';
const STEREO_48K = { sampleRate: 48_000, channels: 2 };

const PRESETS: Record<TranscodePreset, PresetDefinition> = {
  mp4: {
    extension: 'mp4',
    contentType: (hasVideo) => (hasVideo ? 'video/mp4' : 'audio/mp4'),
    keepsVideo: true,
    audio: { ...STEREO_48K, codec: 'aac' },
    formatName: 'mp4',
    ffmpegAudio: ['-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', '-f', 'mp4'],
    mediaConvert: {
      container: { Container: 'MP4', Mp4Settings: { MoovPlacement: 'PROGRESSIVE_DOWNLOAD' } },
      codec: 'AAC',
      settings: { Bitrate: 128_000, CodingMode: 'CODING_MODE_2_0' },
    },
  },
  ogg_opus: {
    extension: 'ogg',
    contentType: () => 'audio/ogg',
    keepsVideo: false,
    audio: { ...STEREO_48K, codec: 'opus' },
    formatName: 'ogg',
    ffmpegAudio: ['-c:a', 'libopus', '-b:a', '96k', '-f', 'ogg'],
    mediaConvert: {
      container: { Container: 'OGG' },
      codec: 'OPUS',
      settings: { Bitrate: 96_000, Channels: 2 },
    },
  },
  wav: {
    extension: 'wav',
    contentType: () => 'audio/wav',
    keepsVideo: false,
    audio: { ...STEREO_48K, codec: 'pcm_s16le', sampleFormat: 's16' },
    formatName: 'wav',
    ffmpegAudio: ['-c:a', 'pcm_s16le', '-f', 'wav'],
    mediaConvert: {
      container: { Container: 'RAW' },
      codec: 'WAV',
      settings: { BitDepth: 16, Channels: 2, Format: 'RIFF' },
    },
  },
  flac_16k_mono: {
    extension: 'flac',
    contentType: () => 'audio/flac',
    keepsVideo: false,
    audio: { sampleRate: 16_000, channels: 1, codec: 'flac', sampleFormat: 's16' },
    formatName: 'flac',
    ffmpegAudio: ['-c:a', 'flac', '-sample_fmt', 's16', '-f', 'flac'],
    mediaConvert: { container: { Container: 'RAW' }, codec: 'FLAC', settings: { BitDepth: 16, Channels: 1 } },
  },
};

export const isTranscodePreset = (value: string): value is TranscodePreset =>
  (TRANSCODE_PRESETS as readonly string[]).includes(value);

export const presetExtension = (preset: TranscodePreset): string => PRESETS[preset].extension;

/** Whether the output of `preset` for a source carries video. */
export const outputHasVideo = (preset: TranscodePreset, sourceHasVideo: boolean): boolean =>
  PRESETS[preset].keepsVideo && sourceHasVideo;

export const presetContentType = (preset: TranscodePreset, sourceHasVideo: boolean): string =>
  PRESETS[preset].contentType(outputHasVideo(preset, sourceHasVideo));

export const presetExpectation = (preset: TranscodePreset, sourceHasVideo: boolean): PresetExpectation => {
  const { formatName, audio } = PRESETS[preset];
  return {
    formatName,
    audioCodec: audio.codec,
    sampleRate: audio.sampleRate,
    channels: audio.channels,
    ...(audio.sampleFormat ? { sampleFormat: audio.sampleFormat } : {}),
    ...(outputHasVideo(preset, sourceHasVideo) ? { videoCodec: 'h264' } : {}),
  };
};

/** ffmpeg's H.264 options for a kept video stream. */
const X264 = ['-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p'];

/** ffmpeg arguments that convert `input` to `output` for `preset`, with machine-readable progress on stdout. */
export const ffmpegArguments = (
  preset: TranscodePreset,
  sourceHasVideo: boolean,
  input: string,
  output: string,
): string[] => {
  const p = PRESETS[preset];
  // `0:V:0`: the first video stream that is not an attached picture (cover art).
  const video = outputHasVideo(preset, sourceHasVideo)
    ? [...['-map', '0:V:0', '-map', '0:a:0?', '-c:v', 'libx264'], ...X264]
    : ['-map', '0:a:0', '-vn'];
  return [
    ...['-hide_banner', '-nostdin', '-y', '-i', input, ...video],
    ...['-ar', String(p.audio.sampleRate), '-ac', String(p.audio.channels), ...p.ffmpegAudio],
    ...['-map_metadata', '-1', '-progress', 'pipe:1', '-nostats', output],
  ];
};

/** MediaConvert `Outputs[0]` of a preset, without `VideoDescription`. */
const mediaConvertOutput = ({ extension, audio, mediaConvert: m }: PresetDefinition) => ({
  Extension: extension,
  ContainerSettings: m.container,
  AudioDescriptions: [
    {
      AudioSourceName: AUDIO_SELECTOR,
      // `AAC` → `AacSettings`, `OPUS` → `OpusSettings`, …
      CodecSettings: {
        Codec: m.codec,
        [`${m.codec[0]}${m.codec.slice(1).toLowerCase()}Settings`]: {
          ...m.settings,
          SampleRate: audio.sampleRate,
        },
      },
    },
  ],
});

/**
 * MediaConvert `Settings` of a job converting `inputUri` (s3://...) to `destination` (s3://.../output, so
 * the file is `output.<extension>`).
 */
export const mediaConvertSettings = (
  preset: TranscodePreset,
  sourceHasVideo: boolean,
  inputUri: string,
  destination: string,
): Record<string, unknown> => {
  const p = PRESETS[preset];
  const video = outputHasVideo(preset, sourceHasVideo)
    ? {
        VideoDescription: {
          CodecSettings: {
            Codec: 'H_264',
            H264Settings: {
              RateControlMode: 'QVBR',
              QvbrSettings: { QvbrQualityLevel: 7 },
              MaxBitrate: 5_000_000,
              CodecProfile: 'HIGH',
              SceneChangeDetect: 'TRANSITION_DETECTION',
            },
          },
        },
      }
    : {};
  return {
    TimecodeConfig: { Source: 'ZEROBASED' },
    Inputs: [
      {
        FileInput: inputUri,
        TimecodeSource: 'ZEROBASED',
        AudioSelectors: { [AUDIO_SELECTOR]: { DefaultSelection: 'DEFAULT' } },
        ...(sourceHasVideo ? { VideoSelector: {} } : {}),
      },
    ],
    OutputGroups: [
      {
        Name: 'File Group',
        OutputGroupSettings: { Type: 'FILE_GROUP_SETTINGS', FileGroupSettings: { Destination: destination } },
        Outputs: [{ ...mediaConvertOutput(p), ...video }],
      },
    ],
  };
};
