/** The media transform presets a transcode job can ask for (what each produces: `domain/transcode-presets.ts`). */
export const TRANSCODE_PRESETS = ['mp4', 'ogg_opus', 'wav', 'flac_16k_mono'] as const;
export type TranscodePreset = (typeof TRANSCODE_PRESETS)[number];
