import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadObject, uploadFile } from '../../shared/aws/s3-objects';
import { ffmpegArguments } from '../../shared/domain/ffmpeg-arguments';
import { recordEngineProgress } from '../../shared/domain/jobs/worker-shell';
import { FFMPEG_BOUNDS, presetExtension } from '../../shared/domain/transcode-presets';
import { transcodeJobs } from '../../shared/domain/transcodes';
import { FfmpegFailedError, type FfmpegRunOptions } from '../../shared/media/ffmpeg-process';
import type { AudioConversion, EngineTiming } from '../transcode/types';

/**
 * One audio-only conversion on ffmpeg, the `TranscodeAudio` task of `statemachines/transcode.asl.json`: reads
 * the source into a scratch directory, runs ffmpeg with the preset's arguments (`domain/ffmpeg-arguments.ts`),
 * writes the output where the probe step put it, and answers the engine's timing as MediaConvert's task
 * does, for the finalize step to record and bill, with the output's size and ETag as its `PutObject` answered
 * them (`written`: the Express machine's finalize records them without reading the output back, 0061). Its
 * progress reaches the job through the job engine, as MediaConvert's progress events do
 * (`recordEngineProgress` with the probe's user metadata). The Lambda entry runs the packaged ffmpeg; the
 * local stack runs this same module with the machine's.
 */
export interface AudioConversionInput {
  conversion: AudioConversion;
  userMetadata: Record<string, string>;
  /** Seconds the conversion may take before it fails (the Express task's bound); the function's time else. */
  limitSeconds?: number;
}

export interface AudioConversionDeps {
  /** Runs ffmpeg with the arguments (the binary is the caller's). */
  runFfmpeg: (args: string[], options: FfmpegRunOptions) => Promise<void>;
  /** Aborted when the conversion must stop (the function's time running out, or the execution stopped). */
  signal: AbortSignal;
  now?: () => Date;
}

/** The error a step ends with when its job moved on (the machine ends quietly on it). */
const jobGone = (jobId = '') =>
  Object.assign(new Error(`The transcode job ${jobId} is no longer this attempt's to work on`), {
    name: transcodeJobs.errors.gone,
  });

/**
 * Progress is recorded at most every PROGRESS_STEP percent and at most once per PROGRESS_MS (MediaConvert
 * reports every 15 s): a one-minute source converts in about 2 s and records none.
 */
const PROGRESS_STEP = 10;
const PROGRESS_MS = 15_000;
/**
 * A job the probe left `probing` (`conversion.probed`, the Express machine) is moved to `transcoding` by the
 * first report, made once the function has run this long: a conversion done sooner writes no state of its
 * own, finalize records what the probe found (decision 0055).
 */
export const START_MS = 3_000;

export const convertAudio = async (
  input: AudioConversionInput,
  deps: AudioConversionDeps,
): Promise<{ timing: EngineTiming; written: { size: number; etag: string } }> => {
  const { conversion, userMetadata } = input;
  const now = deps.now ?? (() => new Date());
  // A progress write the job refuses (canceled, retried) stops ffmpeg: an Express execution cannot be
  // stopped, so this is how a cancel reaches its conversion.
  const gone = new AbortController();
  let pending: Promise<unknown> = Promise.resolve();
  let latest = 0;
  /** The job moved to `transcoding` (by its probe, or by this conversion's first report). */
  let started = conversion.probed === undefined;
  const report = (percent: number) => {
    const start = started
      ? undefined
      : {
          from: ['probing', 'transcoding'] as const,
          set: { durationSeconds: conversion.durationSeconds, ...conversion.probed },
        };
    started = true;
    pending = pending
      .then(async () => {
        const { recorded } = await recordEngineProgress(transcodeJobs, 'transcoding', {
          meta: userMetadata,
          percent,
          now: now(),
          ...(start ? { start } : {}),
        });
        if (!recorded) gone.abort(jobGone(userMetadata.jobId));
      })
      .catch(() => undefined);
  };
  const starting = started ? undefined : setTimeout(() => report(latest), START_MS);
  // The job id in the directory name lets an operator (and the local tests) find this job's ffmpeg process.
  const dir = await mkdtemp(join(tmpdir(), `transcode-${userMetadata.jobId ?? 'job'}-`));
  try {
    const inFile = join(dir, 'source');
    const outFile = join(dir, `output.${presetExtension(conversion.preset)}`);
    await downloadObject(conversion.source.bucket, conversion.source.fullPath, inFile);
    // The probe chose ffmpeg for a source within the bounds; one replaced since then may not be.
    if ((await stat(inFile)).size > FFMPEG_BOUNDS.sourceBytes)
      throw new FfmpegFailedError('The source grew beyond what the ffmpeg function converts.');
    deps.signal.throwIfAborted();
    const signal = AbortSignal.any([deps.signal, gone.signal]);
    signal.throwIfAborted();
    const startTime = Date.now() / 1000;
    let reported = 0;
    let reportedAt = performance.now();
    await deps.runFfmpeg(ffmpegArguments(conversion.preset, false, inFile, outFile), {
      signal,
      durationSeconds: conversion.durationSeconds,
      onProgress: (percent) => {
        latest = percent;
        if (!started) return;
        if (percent < reported + PROGRESS_STEP || performance.now() - reportedAt < PROGRESS_MS) return;
        reported = percent;
        reportedAt = performance.now();
        report(percent);
      },
    });
    const finishTime = Date.now() / 1000;
    await pending;
    signal.throwIfAborted();
    const written = await uploadFile(
      conversion.output.bucket,
      conversion.output.fullPath,
      outFile,
      conversion.output.contentType,
    );
    clearTimeout(starting);
    await pending;
    return { timing: { StartTime: startTime, FinishTime: finishTime }, written };
  } finally {
    clearTimeout(starting);
    await rm(dir, { recursive: true, force: true });
  }
};
