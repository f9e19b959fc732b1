import { type MediaConvertOutput, mediaConvertJobSettings } from '../aws/mediaconvert-settings';
import { TRANSCODE_PRESETS, type TranscodeEngine, type TranscodePreset } from '../types/transcodes';

export { TRANSCODE_PRESETS, type TranscodePreset };

/**
 * Media transform presets: one table of what each output is (container, audio parameters, whether video is
 * kept) that yields the MediaConvert output settings; an engine in MediaConvert's place reads the same
 * parameters (`presetConversion`) and maps the preset to its own codec options.
 *
 * Decisions (the spec names the presets only):
 * - Audio is always resampled to fixed, documented parameters so AWS and local outputs agree: 48 kHz stereo
 *   for `mp4`, `ogg_opus` and `wav`; 16 kHz mono for `flac_16k_mono`.
 * - `mp4` keeps the first video stream as H.264 (yuv420p) when the source has one; an audio-only source
 *   gives AAC in MP4 (no video track). Every other preset drops video.
 * - Outputs are written as `output.<extension>` under the job's attempt prefix.
 * - The audio-only presets run on ffmpeg in a Lambda function (`transcodeEngine`), within `FFMPEG_BOUNDS`;
 *   `mp4` (video) and sources beyond those bounds run on MediaConvert (docs/decisions/0039).
 */
interface PresetDefinition {
  extension: string;
  contentType: (hasVideo: boolean) => string;
  keepsVideo: boolean;
  audio: { sampleRate: number; channels: number };
  /** MediaConvert container settings, audio codec and its settings (`SampleRate` comes from `audio`). */
  mediaConvert: Pick<MediaConvertOutput, 'container' | 'codec' | 'codecSettings'>;
}

const STEREO_48K = { sampleRate: 48_000, channels: 2 };

const PRESETS: Record<TranscodePreset, PresetDefinition> = {
  mp4: {
    extension: 'mp4',
    contentType: (hasVideo) => (hasVideo ? 'video/mp4' : 'audio/mp4'),
    keepsVideo: true,
    audio: STEREO_48K,
    mediaConvert: {
      container: { Container: 'MP4', Mp4Settings: { MoovPlacement: 'PROGRESSIVE_DOWNLOAD' } },
      codec: 'AAC',
      codecSettings: { Bitrate: 128_000, CodingMode: 'CODING_MODE_2_0' },
    },
  },
  ogg_opus: {
    extension: 'ogg',
    contentType: () => 'audio/ogg',
    keepsVideo: false,
    audio: STEREO_48K,
    mediaConvert: {
      container: { Container: 'OGG' },
      codec: 'OPUS',
      codecSettings: { Bitrate: 96_000, Channels: 2 },
    },
  },
  wav: {
    extension: 'wav',
    contentType: () => 'audio/wav',
    keepsVideo: false,
    audio: STEREO_48K,
    mediaConvert: {
      container: { Container: 'RAW' },
      codec: 'WAV',
      codecSettings: { BitDepth: 16, Channels: 2, Format: 'RIFF' },
    },
  },
  flac_16k_mono: {
    extension: 'flac',
    contentType: () => 'audio/flac',
    keepsVideo: false,
    audio: { sampleRate: 16_000, channels: 1 },
    mediaConvert: {
      container: { Container: 'RAW' },
      codec: 'FLAC',
      codecSettings: { BitDepth: 16, Channels: 1 },
    },
  },
};

/**
 * What the ffmpeg function converts: sources up to 2 GiB and 2 hours. The function downloads the source to
 * its ephemeral storage and writes the output there (a 2-hour 48 kHz stereo WAV is 1.4 GB), and must finish
 * within Lambda's 15 minutes: the slowest audio preset (`ogg_opus`) takes about 2 s of CPU per minute of
 * audio with the packaged ffmpeg, so 2 hours is about 4 minutes on the function's one vCPU.
 */
export const FFMPEG_BOUNDS = { sourceBytes: 2 * 1024 ** 3, durationSeconds: 2 * 3600 } as const;

/** What one Express execution converts (15 min of Opus ≈ 30 s of CPU; beyond: handed over, decision 0046). */
export const EXPRESS_BOUNDS = { sourceBytes: 512 * 1024 ** 2, durationSeconds: 15 * 60 } as const;

/** The machine a job starts on: Express for an audio-only preset of a source within its size, else Standard. */
export const transcodeMachine = (preset: TranscodePreset, bytes: number): 'transcode' | 'transcode-audio' =>
  !PRESETS[preset].keepsVideo && bytes <= EXPRESS_BOUNDS.sourceBytes ? 'transcode-audio' : 'transcode';

/** Whether a probed source is converted within the Express audio machine (else it is handed over). */
export const fitsExpress = (preset: TranscodePreset, source: { bytes: number; durationSeconds: number }) =>
  transcodeMachine(preset, source.bytes) === 'transcode-audio' &&
  source.durationSeconds <= EXPRESS_BOUNDS.durationSeconds;

/**
 * The engine that converts a source to `preset`: ffmpeg for the audio-only presets within `FFMPEG_BOUNDS`,
 * MediaConvert for video (`mp4`) and for longer or larger sources.
 */
export const transcodeEngine = (
  preset: TranscodePreset,
  source: { bytes: number; durationSeconds: number },
): TranscodeEngine =>
  !PRESETS[preset].keepsVideo &&
  source.bytes <= FFMPEG_BOUNDS.sourceBytes &&
  source.durationSeconds <= FFMPEG_BOUNDS.durationSeconds
    ? 'ffmpeg'
    : 'mediaconvert';

export const isTranscodePreset = (value: string): value is TranscodePreset =>
  (TRANSCODE_PRESETS as readonly string[]).includes(value);

export const presetExtension = (preset: TranscodePreset): string => PRESETS[preset].extension;

/** Whether the output of `preset` for a source carries video. */
const outputHasVideo = (preset: TranscodePreset, sourceHasVideo: boolean): boolean =>
  PRESETS[preset].keepsVideo && sourceHasVideo;

export const presetContentType = (preset: TranscodePreset, sourceHasVideo: boolean): string =>
  PRESETS[preset].contentType(outputHasVideo(preset, sourceHasVideo));

/** What the output of `preset` for a source is: whether it keeps video, its audio's rate and channels. */
export const presetConversion = (preset: TranscodePreset, sourceHasVideo: boolean) => ({
  keepVideo: outputHasVideo(preset, sourceHasVideo),
  ...PRESETS[preset].audio,
});

/** MediaConvert `Settings` of a job converting `inputUri` (s3://...) to `destination` (s3://.../output). */
export const mediaConvertSettings = (
  preset: TranscodePreset,
  sourceHasVideo: boolean,
  inputUri: string,
  destination: string,
): Record<string, unknown> => {
  const p = PRESETS[preset];
  return mediaConvertJobSettings({
    inputUri,
    destination,
    sourceHasVideo,
    keepVideo: outputHasVideo(preset, sourceHasVideo),
    output: { extension: p.extension, sampleRate: p.audio.sampleRate, ...p.mediaConvert },
  });
};
