import { open, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { splitSentences } from '../shared/domain/sentences';
import { marksFromDurations } from '../shared/domain/speech-timings';
import { FFMPEG } from './media-engine';
import { run } from './speech-engine';
import { ESPEAK_NG, SpeechSynthesisFailedError } from './speech-synthesis';

/**
 * The local engine of long-form speech jobs, in place of Polly's synthesis tasks: the text is split into
 * sentences (`sentences.ts`), espeak-ng speaks each one to its own WAV file, as many at a time as the machine
 * has cores, and ffmpeg joins them (concat demuxer) and encodes the result in one pass. Each sentence's
 * duration is measured from its WAV header, so the sentence speech marks (Polly's format: the start of each
 * sentence in milliseconds) are exact without decoding anything.
 */
export type LocalOutputFormat = 'mp3' | 'ogg_opus' | 'pcm';

/** ffmpeg's output options per Polly output format (`pcm`: raw 16 kHz 16-bit mono, as Polly writes it). */
const ENCODERS: Record<LocalOutputFormat, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  ogg_opus: ['-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'],
  pcm: ['-ar', '16000', '-c:a', 'pcm_s16le', '-f', 's16le'],
};

/** Milliseconds of a WAV file from its header: the `data` chunk's size over the byte rate. */
export const wavDurationMs = async (file: string): Promise<number> => {
  const handle = await open(file, 'r');
  try {
    const header = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(header, 0, header.length, 0);
    const byteRate = header.readUInt32LE(28);
    let offset = 12;
    while (offset + 8 <= bytesRead) {
      const id = header.toString('ascii', offset, offset + 4);
      const size = header.readUInt32LE(offset + 4);
      if (id === 'data') {
        const { size: fileSize } = await handle.stat();
        return (Math.min(size, fileSize - offset - 8) / byteRate) * 1000;
      }
      offset += 8 + size + (size % 2);
    }
    throw new SpeechSynthesisFailedError(`No data chunk in ${file}`);
  } finally {
    await handle.close();
  }
};

/** Runs `work` over `items` with at most `limit` at a time, keeping the order of the results. */
const pool = async <T, R>(items: readonly T[], limit: number, work: (item: T, i: number) => Promise<R>) => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
};

const must = async (command: string, args: string[], signal: AbortSignal) => {
  const result = await run(command, args, signal);
  if (result.code !== 0)
    throw new SpeechSynthesisFailedError(`${command} exited ${result.code}: ${result.stderr.slice(-300)}`);
};

/** Each sentence spoken to `dir/s<i>.wav`, `parallelism` at a time; their durations in milliseconds. */
export const speakSentences = (
  sentences: readonly string[],
  voice: string,
  dir: string,
  signal: AbortSignal,
  parallelism = availableParallelism(),
) =>
  pool(sentences, parallelism, async (sentence, i) => {
    const text = join(dir, `s${i}.txt`);
    const wav = join(dir, `s${i}.wav`);
    await writeFile(text, sentence);
    await must(ESPEAK_NG, ['-v', voice, '-f', text, '-w', wav], signal);
    return { wav, ms: await wavDurationMs(wav) };
  });

/** ffmpeg: the WAV files joined in order and encoded into `output`. */
export const joinWavs = async (
  wavs: readonly string[],
  format: LocalOutputFormat,
  dir: string,
  output: string,
  signal: AbortSignal,
) => {
  const list = join(dir, 'sentences.txt');
  await writeFile(list, wavs.map((w) => `file '${w}'`).join('\n'));
  await must(
    FFMPEG,
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      list,
      '-ac',
      '1',
      ...ENCODERS[format],
      output,
    ],
    signal,
  );
};

/** The text spoken into `dir/audio`, with its sentence speech marks (JSON lines) and the engine's run time. */
export const synthesizeLongText = async (options: {
  text: string;
  voice: string;
  format: LocalOutputFormat;
  dir: string;
  signal: AbortSignal;
}): Promise<{ audio: string; marks: string; engineMs: number }> => {
  const started = performance.now();
  const sentences = splitSentences(options.text);
  if (sentences.length === 0) throw new SpeechSynthesisFailedError('The text has no sentence to speak.');
  const spoken = await speakSentences(sentences, options.voice, options.dir, options.signal);
  const audio = join(options.dir, 'audio');
  await joinWavs(
    spoken.map((s) => s.wav),
    options.format,
    options.dir,
    audio,
    options.signal,
  );
  const marks = marksFromDurations(
    sentences,
    spoken.map((s) => s.ms),
  );
  return { audio, marks, engineMs: performance.now() - started };
};
