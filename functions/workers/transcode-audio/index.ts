import type { Context } from 'aws-lambda';
import { FfmpegFailedError, runFfmpegBinary } from '../../shared/media/ffmpeg-process';
import { createHandler } from '../../shared/pipeline/handler';
import { type AudioConversionInput, convertAudio } from './convert';

/** The ffmpeg of the function's layer (`lib/constructs/ffmpeg-layer.ts`: `bin/ffmpeg` under `/opt`). */
const FFMPEG = '/opt/bin/ffmpeg';

/** Time kept back from the function's timeout: ffmpeg is stopped and the failure answered before Lambda's own end. */
const MARGIN_MS = 20_000;

/**
 * Lambda entry of the ffmpeg function: the `TranscodeAudio` task of the transcode state machine and the
 * `ConvertAudio` task of the Express audio machine. ffmpeg is stopped when the invocation is about to time out
 * or its `limitSeconds` pass, and the task fails with `TranscodeEngineFailed`.
 */
export const handler = createHandler(async (input: AudioConversionInput, context: Context) => {
  const controller = new AbortController();
  const remaining = context.getRemainingTimeInMillis?.();
  // The function's time, or the Express task's bound when the machine gives one, whichever ends first.
  const bounds = [
    ...(remaining === undefined ? [] : [remaining - MARGIN_MS]),
    ...(input.limitSeconds === undefined ? [] : [input.limitSeconds * 1000]),
  ];
  const timer =
    bounds.length === 0
      ? undefined
      : setTimeout(
          () => controller.abort(new FfmpegFailedError('ffmpeg did not finish within its time.')),
          Math.max(0, Math.min(...bounds)),
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
