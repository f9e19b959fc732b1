import { MediaConvertClient, ProbeCommand, type ProbeCommandOutput } from '@aws-sdk/client-mediaconvert';
import { env } from '../env';

/** What the transcode probe needs to know about a source. */
export interface MediaProbe {
  durationSeconds: number;
  hasVideo: boolean;
  hasAudio: boolean;
}

/** Reads a stored object's media properties; throws `SourceUnreadable` when it is not decodable media. */
export type MediaProber = (source: { bucket: string; fullPath: string }) => Promise<MediaProbe>;

export class SourceUnreadableError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'SourceUnreadable';
  }
}

const client = new MediaConvertClient({ region: env().region });

/** MediaConvert's Probe API on the S3 object (the worker's role may read the source). */
export const probeWithMediaConvert: MediaProber = async ({ bucket, fullPath }) => {
  let result: ProbeCommandOutput;
  try {
    result = await client.send(new ProbeCommand({ InputFiles: [{ FileUrl: `s3://${bucket}/${fullPath}` }] }));
  } catch (error) {
    if (error instanceof Error && error.name === 'BadRequestException') {
      throw new SourceUnreadableError(`MediaConvert cannot read the source: ${error.message}`);
    }
    throw error;
  }
  const container = result.ProbeResults?.[0]?.Container;
  const tracks = container?.Tracks ?? [];
  const hasVideo = tracks.some((t) => t.TrackType === 'video');
  const hasAudio = tracks.some((t) => t.TrackType === 'audio');
  const durationSeconds = Number(container?.Duration ?? Math.max(0, ...tracks.map((t) => t.Duration ?? 0)));
  if (!(hasAudio || hasVideo) || !(durationSeconds > 0)) {
    throw new SourceUnreadableError('The source has no audio or video stream.');
  }
  return { durationSeconds, hasVideo, hasAudio };
};
