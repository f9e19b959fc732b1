import type { Context } from 'aws-lambda';
import { FfmpegFailedError, runFfmpegBinary } from '../../shared/media/ffmpeg-process';
import { createHandler } from '../../shared/pipeline/handler';
import { type AudioConversionInput, convertAudio } from './convert';

/** The ffmpeg of the function's layer (`lib/constructs/ffmpeg-layer.ts`: `bin/ffmpeg` under `/opt`). */
const FFMPEG = '/opt/bin/ffmpeg';

/** Time kept back from the function's timeout: ffmpeg is stopped and the failure answered before Lambda's own end. */
const MARGIN_MS = 20_000;

/**
 * Lambda entry of the ffmpeg function: the `TranscodeAudio` task of the transcode state machine. ffmpeg is
 * stopped when the invocation is about to time out, and the task fails with `TranscodeEngineFailed`.
 */
export const handler = createHandler(async (input: AudioConversionInput, context: Context) => {
  const controller = new AbortController();
  const remaining = context.getRemainingTimeInMillis?.();
  const timer =
    remaining === undefined
      ? undefined
      : setTimeout(
          () => controller.abort(new FfmpegFailedError('ffmpeg did not finish within the function timeout.')),
          Math.max(0, remaining - MARGIN_MS),
        );
  try {
    return await convertAudio(input, {
      signal: controller.signal,
      runFfmpeg: (args, options) => runFfmpegBinary(FFMPEG, args, options),
    });
  } finally {
    clearTimeout(timer);
  }
});
