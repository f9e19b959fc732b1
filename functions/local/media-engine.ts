import { spawn } from 'node:child_process';
import { type MediaProbe, type MediaProber, SourceUnreadableError } from '../shared/aws/mediaconvert';
import { presignRead } from '../shared/aws/s3-objects';
import { runFfmpegBinary } from '../shared/media/ffmpeg-process';
import { recordEngineSpan } from './engine-processes';

/**
 * The local media engine: ffprobe and ffmpeg from the machine (`/usr/bin`) in place of MediaConvert.
 */
export const FFMPEG = '/usr/bin/ffmpeg';
export const FFPROBE = '/usr/bin/ffprobe';

export interface ProbeStreams {
  format?: { format_name?: string; duration?: string };
  streams?: {
    codec_type?: string;
    codec_name?: string;
    sample_rate?: string;
    channels?: number;
    sample_fmt?: string;
    duration?: string;
    disposition?: { attached_pic?: number };
  }[];
}

/** Runs a command to its end, with its stdout and the end of its stderr. */
const run = (
  command: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-8000);
    });
    child.once('error', reject);
    child.once('close', (code) => {
      recordEngineSpan(command, started);
      resolve({ code, stdout, stderr });
    });
  });

/** ffprobe of a local file: format and streams as JSON; `undefined` when ffprobe cannot read it. */
export const ffprobeFile = async (file: string): Promise<ProbeStreams | undefined> => {
  const result = await run(FFPROBE, [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    file,
  ]);
  if (result.code !== 0) return undefined;
  return JSON.parse(result.stdout) as ProbeStreams;
};

/**
 * What a source holds. An attached picture (cover art of an audio file) is a video stream to ffprobe but not
 * video to convert: such streams are ignored, so audio with cover art is audio.
 */
export const mediaProbeOf = (probe: ProbeStreams | undefined): MediaProbe => {
  const streams = (probe?.streams ?? []).filter((s) => s.disposition?.attached_pic !== 1);
  const hasVideo = streams.some((s) => s.codec_type === 'video');
  const hasAudio = streams.some((s) => s.codec_type === 'audio');
  const durationSeconds = Number(probe?.format?.duration ?? 0);
  if (!probe || !(hasAudio || hasVideo) || !(durationSeconds > 0)) {
    throw new SourceUnreadableError('The source has no readable audio or video stream.');
  }
  return { durationSeconds, hasVideo, hasAudio };
};

/** The local stand-in for MediaConvert's Probe: ffprobe reads the object's headers over a presigned URL. */
export const probeWithFfprobe: MediaProber = async ({ bucket, fullPath }) =>
  mediaProbeOf(await ffprobeFile(await presignRead(bucket, fullPath)));

/** Processes the local stack started, so tests can check that cancel leaves none running. */
export const runningFfmpeg = new Set<number>();

/**
 * Runs the machine's ffmpeg with `args` (which must include `-progress pipe:1`), reporting progress in
 * percent of `durationSeconds`, as the ffmpeg function runs its own (`runFfmpegBinary`). Aborting the signal
 * kills ffmpeg (SIGKILL) and rejects with the signal's reason.
 */
export const runFfmpeg = (
  args: string[],
  options: { signal: AbortSignal; durationSeconds: number; onProgress?: (percent: number) => void },
): Promise<void> => {
  const started = performance.now();
  return runFfmpegBinary(FFMPEG, args, {
    ...options,
    onSpawn: (pid) => runningFfmpeg.add(pid),
    onExit: (pid) => {
      recordEngineSpan(FFMPEG, started);
      if (pid !== undefined) runningFfmpeg.delete(pid);
    },
  });
};
