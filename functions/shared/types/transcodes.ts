/** The media transform presets a transcode job can ask for (what each produces: `domain/transcode-presets.ts`). */
export const TRANSCODE_PRESETS = ['mp4', 'ogg_opus', 'wav', 'flac_16k_mono'] as const;
export type TranscodePreset = (typeof TRANSCODE_PRESETS)[number];

/** A stored file: the platform bucket and its path under `companies/<companyId>/`. */
export interface ObjectReference {
  bucket: string;
  fullPath: string;
}

/** A job's source as enqueued: the stored object's size, ETag and content type. */
export interface TranscodeSource extends ObjectReference {
  size: number;
  etag: string;
  contentType?: string;
}

/** A job's output, recorded as one of the company's stored objects. */
export interface TranscodeOutput extends ObjectReference {
  size: number;
  contentType: string;
}
