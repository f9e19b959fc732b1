import {
  type Container,
  MediaConvertClient,
  ProbeCommand,
  type ProbeCommandOutput,
  type Track,
} from '@aws-sdk/client-mediaconvert';
import { env } from '../env';
import { tracer } from '../observability/tracer';

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

const client = tracer.captureAWSv3Client(new MediaConvertClient({ region: env().region }));

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
  return mediaProbeOfContainer(result.ProbeResults?.[0]?.Container);
};

/**
 * Cover art of an audio file (an attached picture) is a video track to MediaConvert's probe, which has no
 * attached-picture flag: a still-image track (MJPEG or an unknown codec such as PNG) that lasts at most a
 * second counts as a picture, not as video, so audio with cover art is converted as audio.
 */
const isStillPicture = (track: Track): boolean =>
  (track.Codec === undefined || track.Codec === 'MJPEG' || track.Codec === 'UNKNOWN') &&
  !((track.Duration ?? 0) > 1);

/** What the probed container holds (pure; tested with recorded probe shapes). */
export const mediaProbeOfContainer = (container: Container | undefined): MediaProbe => {
  const tracks = container?.Tracks ?? [];
  const hasVideo = tracks.some((t) => t.TrackType === 'video' && !isStillPicture(t));
  const hasAudio = tracks.some((t) => t.TrackType === 'audio');
  const durationSeconds = Number(container?.Duration ?? Math.max(0, ...tracks.map((t) => t.Duration ?? 0)));
  if (!(hasAudio || hasVideo) || !(durationSeconds > 0)) {
    throw new SourceUnreadableError('The source has no audio or video stream.');
  }
  return { durationSeconds, hasVideo, hasAudio };
};
