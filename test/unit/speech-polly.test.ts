import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SynthesizeSpeechCommand } from '@aws-sdk/client-polly';
import { afterAll, describe, expect, it } from 'vitest';
import { pollyEngineWith, pollyRequest } from '../../functions/shared/aws/polly';
import { splitIntoParts } from '../../functions/shared/domain/sentences';
import { billedCharacters, SPEECH_CALL_MAX_CHARACTERS } from '../../functions/shared/domain/speech';
import { type SpeechFormat, VOICE_PROFILES } from '../../functions/shared/types/speech-voices';

const dir = mkdtempSync(join(tmpdir(), 'polly-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What Polly would answer: a tone of `seconds` in the requested output format, made by ffmpeg. */
const audio = (format: string, seconds: number, n: number): Uint8Array => {
  const file = join(dir, `stub-${n}.${format}`);
  const codec: Record<string, string[]> = {
    pcm: ['-f', 's16le', '-ar', '16000'],
    mp3: ['-ar', '22050', '-c:a', 'libmp3lame', '-b:a', '48k', '-f', 'mp3'],
    ogg_opus: ['-ar', '48000', '-c:a', 'libopus', '-f', 'ogg'],
  };
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-ac',
    '1',
    ...(codec[format] ?? []),
    file,
  ]);
  return readFileSync(file);
};

/** A stubbed client: records each request and answers audio lasting one second per 100 characters. */
const stub = () => {
  const requests: SynthesizeSpeechCommand['input'][] = [];
  let n = 0;
  return {
    requests,
    client: {
      send: async (command: SynthesizeSpeechCommand) => {
        requests.push(command.input);
        const bytes = audio(String(command.input.OutputFormat), (command.input.Text?.length ?? 0) / 100, n++);
        return { AudioStream: { transformToByteArray: async () => bytes } };
      },
    },
  };
};

describe('Polly adapter (stubbed client)', () => {
  const voice = VOICE_PROFILES.find((v) => v.id === 'en-GB-brian') ?? VOICE_PROFILES[0];
  if (!voice) throw new Error('no voice');

  it('builds one SynthesizeSpeech request per part with the voice and engine of the profile', () => {
    expect(pollyRequest('Hello.', voice, 'mp3')).toEqual({
      Text: 'Hello.',
      TextType: 'text',
      VoiceId: 'Brian',
      Engine: 'standard',
      OutputFormat: 'mp3',
    });
    expect(pollyRequest('Hi.', voice, 'wav')).toMatchObject({ OutputFormat: 'pcm', SampleRate: '16000' });
    expect(pollyRequest('Hi.', voice, 'ogg_opus')).toMatchObject({ OutputFormat: 'ogg_opus' });
  });

  it.each(['wav', 'mp3', 'ogg_opus'] as const)(
    'joins the parts of a 4096-character text into one %s file that decodes to the full duration',
    async (format: SpeechFormat) => {
      const text = 'The quick brown fox jumps over the lazy dog. '.repeat(91).trim();
      expect(text.length).toBeGreaterThan(4000);
      const parts = splitIntoParts(text, SPEECH_CALL_MAX_CHARACTERS);
      expect(parts.length).toBe(2);
      const { client, requests } = stub();
      const { file, durationSeconds } = await pollyEngineWith(client).synthesize({
        parts,
        voice,
        format,
        dir,
      });
      expect(requests.map((r) => r.Text)).toEqual(parts);
      for (const r of requests) expect(r.Text?.length).toBeLessThanOrEqual(3000);
      // The characters sent are the characters billed.
      expect(requests.reduce((sum, r) => sum + (r.Text?.length ?? 0), 0)).toBe(billedCharacters(parts));
      const expected = billedCharacters(parts) / 100;
      expect(Math.abs(durationSeconds - expected)).toBeLessThan(0.2);
      // Decoded end to end: the time ffmpeg reaches is the full duration of both parts.
      const log = execFileSync('sh', ['-c', `ffmpeg -v info -i "${file}" -f null - 2>&1`], {
        encoding: 'utf8',
      });
      const times = [...log.matchAll(/time=(\d+):(\d+):([\d.]+)/g)].map(
        (m) => Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]),
      );
      expect(Math.abs((times.at(-1) ?? 0) - expected)).toBeLessThan(0.2);
    },
  );
});
