import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SpeechEngine, SpeechFormat } from '../shared/types/speech-voices';
import { FFMPEG, FFPROBE } from './media-engine';
import { run } from './speech-engine';
import { espeakVoiceOf } from './speech-voices';

/**
 * The local speech engine in place of Amazon Polly: Debian's `espeak-ng` writes each part as WAV, and ffmpeg
 * joins the parts (concat demuxer) and encodes them to the requested format in one pass. Installed by
 * `bin/setup.sh`.
 */
export const ESPEAK_NG = '/usr/bin/espeak-ng';

export class SpeechSynthesisFailedError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'SpeechSynthesisFailed';
  }
}

/** Longest a synthesis may take (4096 characters take a few seconds). */
const ENGINE_TIMEOUT_MS = 120_000;

const must = async (command: string, args: string[]) => {
  const result = await run(command, args, AbortSignal.timeout(ENGINE_TIMEOUT_MS));
  if (result.code !== 0)
    throw new SpeechSynthesisFailedError(`${command} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
};

const ENCODERS: Record<SpeechFormat, { extension: string; args: string[] }> = {
  mp3: { extension: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '64k'] },
  ogg_opus: { extension: 'ogg', args: ['-c:a', 'libopus', '-b:a', '32k'] },
  wav: { extension: 'wav', args: ['-c:a', 'pcm_s16le'] },
};

/** Duration in seconds of an audio file, decoded by ffprobe. */
export const probeDuration = async (file: string): Promise<number> => {
  const out = await must(FFPROBE, [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'csv=p=0',
    file,
  ]);
  return Number(out.trim());
};

/** Each part spoken by espeak-ng to a WAV file, in order. */
export const speakParts = async (parts: readonly string[], voice: string, dir: string): Promise<string[]> => {
  const files: string[] = [];
  for (const [i, part] of parts.entries()) {
    const text = join(dir, `part-${i}.txt`);
    const wav = join(dir, `part-${i}.wav`);
    await writeFile(text, part);
    await must(ESPEAK_NG, ['-v', voice, '-f', text, '-w', wav]);
    files.push(wav);
  }
  return files;
};

export const espeakEngine: SpeechEngine = {
  synthesize: async ({ parts, voice, format, dir }) => {
    const wavs = await speakParts(parts, espeakVoiceOf(voice), dir);
    const list = join(dir, 'parts.txt');
    await writeFile(list, wavs.map((w) => `file '${w}'`).join('\n'));
    const encoder = ENCODERS[format];
    const file = join(dir, `speech.${encoder.extension}`);
    await must(FFMPEG, [
      '-hide_banner',
      '-nostdin',
      '-y',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      list,
      '-ac',
      '1',
      ...(format === 'ogg_opus' ? ['-ar', '48000'] : []),
      ...encoder.args,
      file,
    ]);
    return { file, durationSeconds: Math.round((await probeDuration(file)) * 1000) / 1000 };
  },
};
