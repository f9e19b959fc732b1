/** The media transform presets a transcode job can ask for (what each produces: `domain/transcode-presets.ts`). */
export const TRANSCODE_PRESETS = ['mp4', 'ogg_opus', 'wav', 'flac_16k_mono'] as const;
export type TranscodePreset = (typeof TRANSCODE_PRESETS)[number];

/** The engines that convert a transcode job's source (which runs a job: `domain/transcode-presets.ts`). */
export const TRANSCODE_ENGINES = ['ffmpeg', 'mediaconvert'] as const;
export type TranscodeEngine = (typeof TRANSCODE_ENGINES)[number];
