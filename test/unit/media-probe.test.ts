import { describe, expect, it } from 'vitest';
import { mediaProbeOf } from '../../functions/local/media-engine';
import { mediaProbeOfContainer } from '../../functions/shared/aws/mediaconvert';

describe('ffprobe interpretation (local engine)', () => {
  it('treats audio with an attached picture (cover art) as audio only', () => {
    expect(
      mediaProbeOf({
        format: { duration: '2.0' },
        streams: [
          { codec_type: 'audio', codec_name: 'mp3', disposition: { attached_pic: 0 } },
          { codec_type: 'video', codec_name: 'mjpeg', disposition: { attached_pic: 1 } },
        ],
      }),
    ).toEqual({ durationSeconds: 2, hasVideo: false, hasAudio: true });
  });

  it('still treats a real video stream as video', () => {
    expect(
      mediaProbeOf({
        format: { duration: '2.0' },
        streams: [
          { codec_type: 'video', codec_name: 'h264', disposition: { attached_pic: 0 } },
          { codec_type: 'audio', codec_name: 'aac' },
        ],
      }).hasVideo,
    ).toBe(true);
  });

  it('refuses a file whose only picture is cover art', () => {
    expect(() =>
      mediaProbeOf({
        format: { duration: '2.0' },
        streams: [{ codec_type: 'video', codec_name: 'png', disposition: { attached_pic: 1 } }],
      }),
    ).toThrow(expect.objectContaining({ name: 'SourceUnreadable' }));
  });
});

describe('MediaConvert probe interpretation', () => {
  it('treats audio with a still-picture track (cover art) as audio only', () => {
    expect(
      mediaProbeOfContainer({
        Duration: 184.2,
        Format: 'mp4',
        Tracks: [
          { TrackType: 'audio', Codec: 'AAC', Duration: 184.2 },
          { TrackType: 'video', Codec: 'MJPEG', Duration: 0 },
        ],
      }),
    ).toEqual({ durationSeconds: 184.2, hasVideo: false, hasAudio: true });
  });

  it('still treats motion video as video, MJPEG included', () => {
    const probe = (codec: 'AVC' | 'MJPEG') =>
      mediaProbeOfContainer({
        Duration: 12,
        Tracks: [
          { TrackType: 'video', Codec: codec, Duration: 12 },
          { TrackType: 'audio', Codec: 'AAC', Duration: 12 },
        ],
      });
    expect(probe('AVC').hasVideo).toBe(true);
    expect(probe('MJPEG').hasVideo).toBe(true);
  });
});
