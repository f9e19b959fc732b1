/**
 * MediaConvert job `Settings` of a one-output conversion: one file input (its default audio, and its video
 * when it has one), one file group writing `<destination>.<extension>`, one audio description (`Codec` with
 * its `<Codec>Settings`, e.g. `AAC` → `AacSettings`), and, when the output keeps video, H.264 at QVBR quality.
 * What the output is (container, codec, its settings) comes from the caller (the transcode presets).
 */
export interface MediaConvertOutput {
  extension: string;
  container: Record<string, unknown>;
  codec: string;
  codecSettings: Record<string, unknown>;
  sampleRate: number;
}

const AUDIO_SELECTOR = 'Audio Selector 1';

const H264_VIDEO = {
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
};

export const mediaConvertJobSettings = (job: {
  /** `s3://bucket/key` of the source. */
  inputUri: string;
  /** `s3://bucket/prefix/output`: the file is `output.<extension>`. */
  destination: string;
  sourceHasVideo: boolean;
  keepVideo: boolean;
  output: MediaConvertOutput;
}): Record<string, unknown> => {
  const { output: o } = job;
  const codecKey = `${o.codec[0]}${o.codec.slice(1).toLowerCase()}Settings`;
  return {
    TimecodeConfig: { Source: 'ZEROBASED' },
    Inputs: [
      {
        FileInput: job.inputUri,
        TimecodeSource: 'ZEROBASED',
        AudioSelectors: { [AUDIO_SELECTOR]: { DefaultSelection: 'DEFAULT' } },
        ...(job.sourceHasVideo ? { VideoSelector: {} } : {}),
      },
    ],
    OutputGroups: [
      {
        Name: 'File Group',
        OutputGroupSettings: {
          Type: 'FILE_GROUP_SETTINGS',
          FileGroupSettings: { Destination: job.destination },
        },
        Outputs: [
          {
            Extension: o.extension,
            ContainerSettings: o.container,
            AudioDescriptions: [
              {
                AudioSourceName: AUDIO_SELECTOR,
                CodecSettings: {
                  Codec: o.codec,
                  [codecKey]: { ...o.codecSettings, SampleRate: o.sampleRate },
                },
              },
            ],
            ...(job.keepVideo ? H264_VIDEO : {}),
          },
        ],
      },
    ],
  };
};
