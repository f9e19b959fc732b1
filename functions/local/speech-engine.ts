import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TranscriptionLanguageCode } from '../shared/types/transcriptions';
import { recordEngineSpan } from './engine-processes';
import { FFMPEG } from './media-engine';

/**
 * The local speech engine in place of Amazon Transcribe: ffmpeg converts the source to 16 kHz mono WAV and
 * Debian's `pocketsphinx_continuous` (its default en-US model, package `pocketsphinx-en-us`) prints the
 * words with their times (`-time yes`). Installed by `bin/setup.sh`.
 */
export const POCKETSPHINX = '/usr/bin/pocketsphinx_continuous';

/**
 * The languages of the published list (`TRANSCRIPTION_LANGUAGES`) the recognizer transcribes: Debian's
 * `pocketsphinx-en-us` model is its default, so `en-US` needs no model argument.
 */
export const RECOGNIZER_LANGUAGES: readonly TranscriptionLanguageCode[] = ['en-US'];

export class SpeechEngineFailedError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'TranscriptionEngineFailed';
  }
}

/** Runs an engine command, collecting its output (stderr: the last 4000 characters). */
export const run = (command: string, args: string[], signal: AbortSignal) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-4000);
    });
    child.once('error', reject);
    child.once('close', (code) => {
      recordEngineSpan(command, started);
      resolve({ code, stdout, stderr });
    });
  });

/** ffmpeg: any readable audio (a URL or a file) → 16 kHz, mono, 16-bit PCM WAV, the model's input. */
export const toRecognizerWav = async (input: string, file: string, signal: AbortSignal) => {
  const result = await run(
    FFMPEG,
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      input,
      '-vn',
      '-ac',
      '1',
      '-ar',
      '16000',
      '-c:a',
      'pcm_s16le',
      '-f',
      'wav',
      file,
    ],
    signal,
  );
  if (result.code !== 0)
    throw new SpeechEngineFailedError(`ffmpeg exited with ${result.code}: ${result.stderr.slice(-300)}`);
};

/** pocketsphinx on a 16 kHz mono WAV: its stdout (hypothesis lines and `word start end confidence` lines). */
export const runPocketsphinx = async (wav: string, signal: AbortSignal): Promise<string> => {
  const result = await run(POCKETSPHINX, ['-infile', wav, '-time', 'yes', '-logfn', '/dev/null'], signal);
  if (result.code !== 0) throw new SpeechEngineFailedError(`pocketsphinx exited with ${result.code}`);
  return result.stdout;
};

/** Converts and recognises `input`; returns pocketsphinx's output and its own run time. */
export const recognise = async (
  input: string,
  signal: AbortSignal,
): Promise<{ stdout: string; recogniserMs: number }> => {
  const dir = await mkdtemp(join(tmpdir(), 'transcription-'));
  try {
    const wav = join(dir, 'audio.wav');
    await toRecognizerWav(input, wav, signal);
    const started = performance.now();
    const stdout = await runPocketsphinx(wav, signal);
    return { stdout, recogniserMs: performance.now() - started };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
