import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { presignRead, uploadFile } from '../../shared/aws/s3-objects';
import { ffmpegArguments } from '../../shared/domain/ffmpeg-arguments';
import { isTranscodePreset, presetContentType } from '../../shared/domain/transcode-presets';
import type { ProgressInput } from '../../workers/transcode/types';
import { createTranscodeWorker } from '../../workers/transcode/worker';
import { type AudioConversionInput, convertAudio } from '../../workers/transcode-audio/convert';
import { probeWithFfprobe, runFfmpeg } from '../media-engine';
import type { TaskOverride } from './machines';

/**
 * Local overrides of the Task states of `statemachines/transcode.asl.json`: the worker steps run the real
 * worker in-process (with ffprobe in place of MediaConvert's Probe API), and `Transcode` runs ffmpeg with the
 * preset's arguments in place of MediaConvert `createJob.sync`, answering the job's `Timing` as MediaConvert
 * does (ffmpeg's start and finish). Its progress reaches the job as MediaConvert's does on AWS: a
 * `STATUS_UPDATE` job state change carrying the job's user metadata, handed to the worker's progress step
 * (what the machine's EventBridge rule delivers there). Stopping the execution (cancel) aborts the signal,
 * which kills ffmpeg. `TranscodeAudio` (the audio-only presets) runs the ffmpeg function's own module with
 * the machine's ffmpeg: the same arguments, reads, writes and progress as on AWS.
 */
const worker = createTranscodeWorker({ probe: probeWithFfprobe });

const parseS3 = (uri: string) => {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match?.[1] || !match[2]) throw new Error(`Not an S3 URI: ${uri}`);
  return { bucket: match[1], key: match[2] };
};

interface CreateJobInput {
  Settings: {
    Inputs: { FileInput: string }[];
    OutputGroups: {
      OutputGroupSettings: { FileGroupSettings: { Destination: string } };
      Outputs: { Extension: string }[];
    }[];
  };
  UserMetadata: Record<string, string>;
}

/**
 * A status update is sent at most every PROGRESS_STEP percent, and at most once per PROGRESS_MS (MediaConvert
 * sends one every `StatusUpdateInterval`).
 */
const PROGRESS_STEP = 10;
const PROGRESS_MS = 1000;

/** MediaConvert's `STATUS_UPDATE` job state change of a job with `userMetadata`, as the progress rule delivers it. */
const statusUpdate = (userMetadata: Record<string, string>, percent: number): ProgressInput => ({
  action: 'progress',
  detail: { status: 'STATUS_UPDATE', userMetadata, jobProgress: { jobPercentComplete: percent } },
});

const transcodeWithFfmpeg: TaskOverride = async (input: CreateJobInput, ctx) => {
  const meta = input.UserMetadata;
  const preset = meta.preset ?? '';
  if (!isTranscodePreset(preset)) throw new Error(`Unknown preset ${preset}`);
  const source = parseS3(input.Settings.Inputs[0]?.FileInput ?? '');
  const group = input.Settings.OutputGroups[0];
  const destination = parseS3(group?.OutputGroupSettings.FileGroupSettings.Destination ?? '');
  const extension = group?.Outputs[0]?.Extension ?? '';
  const jobId = meta.jobId ?? '';
  const durationSeconds = Number(meta.durationSeconds);
  // The job id in the directory name lets an operator (and the tests) find this job's ffmpeg process.
  const dir = await mkdtemp(join(tmpdir(), `transcode-${jobId}-`));
  try {
    // ffmpeg streams the source over a presigned URL, decoding while it downloads.
    const inFile = await presignRead(source.bucket, source.key);
    const outFile = join(dir, `output.${extension}`);
    // MediaConvert reports its job's timing in epoch seconds; ffmpeg's run is this conversion's media time.
    const startTime = Date.now() / 1000;
    let reported = 0;
    let reportedAt = performance.now();
    let pending: Promise<unknown> = Promise.resolve();
    await runFfmpeg(ffmpegArguments(preset, meta.hasVideo === 'true', inFile, outFile), {
      signal: ctx.signal,
      durationSeconds,
      onProgress: (percent) => {
        if (percent < reported + PROGRESS_STEP || performance.now() - reportedAt < PROGRESS_MS) return;
        reported = percent;
        reportedAt = performance.now();
        pending = pending.then(() => worker(statusUpdate(meta, percent))).catch(() => undefined);
      },
    });
    const finishTime = Date.now() / 1000;
    await pending;
    ctx.signal.throwIfAborted();
    await uploadFile(
      destination.bucket,
      `${destination.key}.${extension}`,
      outFile,
      presetContentType(preset, meta.hasVideo === 'true'),
    );
    return {
      Job: {
        Id: `local-${ctx.executionArn.split(':').pop()}`,
        Status: 'COMPLETE',
        UserMetadata: meta,
        Timing: { SubmitTime: startTime, StartTime: startTime, FinishTime: finishTime },
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

export const tasks: Record<string, TaskOverride> = {
  Probe: (input) => worker(input),
  Transcode: transcodeWithFfmpeg,
  TranscodeAudio: (input: AudioConversionInput, ctx) =>
    convertAudio(input, { signal: ctx.signal, runFfmpeg }),
  Finalize: (input) => worker(input),
  RecordFailure: (input) => worker(input),
};

/** Definition substitutions that are not function ARNs. */
export const substitutions: Record<string, string> = {
  MediaConvertRoleArn: 'arn:aws:iam::000000000000:role/local-mediaconvert',
};
