import { spawn } from 'node:child_process';

/**
 * Runs an ffmpeg binary as a child process: the ffmpeg function runs the packaged binary (`/opt/bin/ffmpeg`,
 * from its layer), the local stack the machine's. Progress is read from `-progress pipe:1`.
 */

export class FfmpegFailedError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'TranscodeEngineFailed';
  }
}

export interface FfmpegRunOptions {
  /** Aborting kills ffmpeg (SIGKILL); the run then rejects with the signal's reason. */
  signal: AbortSignal;
  /** Seconds of media, the whole of the progress percent. */
  durationSeconds: number;
  onProgress?: (percent: number) => void;
  /** The process id once spawned, and when it exited (the local stack tracks its processes). */
  onSpawn?: (pid: number) => void;
  onExit?: (pid: number | undefined) => void;
}

/** The percent of `durationSeconds` an `out_time_us=` line of ffmpeg's progress reports (at most 99). */
const percentOf = (line: string, durationSeconds: number): number | undefined => {
  const match = /^out_time_us=(\d+)/.exec(line.trim());
  return match && durationSeconds > 0
    ? Math.min(99, Math.floor(Number(match[1]) / 1e4 / durationSeconds))
    : undefined;
};

/**
 * Runs `binary` with `args` (which must include `-progress pipe:1`), reporting progress in percent of the
 * media's duration. Rejects with `FfmpegFailedError` (`TranscodeEngineFailed`, the end of ffmpeg's stderr)
 * when ffmpeg exits with an error.
 */
export const runFfmpegBinary = (binary: string, args: string[], options: FfmpegRunOptions): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid) options.onSpawn?.(child.pid);
    let buffered = '';
    let stderr = '';
    let aborted = false;
    const kill = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    if (options.signal.aborted) kill();
    options.signal.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (buffered + chunk.toString()).split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const percent = percentOf(line, options.durationSeconds);
        if (percent !== undefined) options.onProgress?.(percent);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8000);
    });
    // A process that cannot start emits `error` and may emit `close` too: the first one settles the run.
    let exited = false;
    const exit = () => {
      if (exited) return false;
      exited = true;
      options.signal.removeEventListener('abort', kill);
      options.onExit?.(child.pid);
      return true;
    };
    child.once('error', (error) => {
      if (exit()) reject(error);
    });
    child.once('close', (code) => {
      if (!exit()) return;
      if (aborted) {
        const reason: unknown = options.signal.reason;
        reject(reason instanceof Error ? reason : new Error('aborted'));
      } else if (code !== 0) {
        reject(new FfmpegFailedError(`ffmpeg exited with ${code}: ${stderr.slice(-500)}`));
      } else resolve();
    });
  });
