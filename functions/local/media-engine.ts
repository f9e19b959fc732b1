import { spawn } from 'node:child_process';
import { type MediaProbe, type MediaProber, SourceUnreadableError } from '../shared/aws/mediaconvert';
import { presignRead } from '../shared/aws/s3-objects';
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

const run = (
  command: string,
  args: string[],
  options: { signal?: AbortSignal; onStdout?: (chunk: string) => void; onSpawn?: (pid: number) => void } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; aborted: boolean }> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid) options.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    let aborted = false;
    const kill = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    if (options.signal?.aborted) kill();
    options.signal?.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (c: Buffer) => {
      const text = c.toString();
      if (options.onStdout) options.onStdout(text);
      else stdout += text;
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-8000);
    });
    child.once('error', reject);
    child.once('close', (code) => {
      recordEngineSpan(command, started);
      options.signal?.removeEventListener('abort', kill);
      resolve({ code, stdout, stderr, aborted });
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

export class FfmpegFailedError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'TranscodeEngineFailed';
  }
}

/** Processes the local stack started, so tests can check that cancel leaves none running. */
export const runningFfmpeg = new Set<number>();

/**
 * Runs ffmpeg with `args` (which must include `-progress pipe:1`), reporting progress in percent of
 * `durationSeconds`. Aborting the signal kills ffmpeg (SIGKILL) and rejects with the signal's reason.
 */
export const runFfmpeg = async (
  args: string[],
  options: { signal: AbortSignal; durationSeconds: number; onProgress?: (percent: number) => void },
): Promise<void> => {
  let pid: number | undefined;
  let buffered = '';
  const result = await run(FFMPEG, args, {
    signal: options.signal,
    onSpawn: (p) => {
      pid = p;
      runningFfmpeg.add(p);
    },
    onStdout: (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^out_time_us=(\d+)/.exec(line.trim());
        if (match && options.durationSeconds > 0) {
          const percent = Math.min(99, Math.floor(Number(match[1]) / 1e4 / options.durationSeconds));
          options.onProgress?.(percent);
        }
      }
    },
  }).finally(() => {
    if (pid !== undefined) runningFfmpeg.delete(pid);
  });
  if (result.aborted)
    throw options.signal.reason instanceof Error ? options.signal.reason : new Error('aborted');
  if (result.code !== 0)
    throw new FfmpegFailedError(`ffmpeg exited with ${result.code}: ${result.stderr.slice(-500)}`);
};
