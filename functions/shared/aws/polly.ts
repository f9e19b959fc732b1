import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  PollyClient,
  SynthesizeSpeechCommand,
  type SynthesizeSpeechCommandInput,
} from '@aws-sdk/client-polly';
import type { SpeechEngine, SpeechFormat, VoiceProfile } from '../types/speech-voices';

/**
 * Amazon Polly as the speech engine. `SynthesizeSpeech` takes at most 3000 billed characters per call, so each
 * part is one call; the parts are joined without re-encoding:
 * - `wav`: each part as 16 kHz 16-bit mono PCM, concatenated behind one WAV header;
 * - `mp3`: MPEG audio frames, which concatenate into one valid stream;
 * - `ogg_opus`: Ogg streams, chained one after the other (RFC 7845 §3), which decoders play in sequence.
 */
const PCM_RATE = 16_000;

type Sender = { send(command: SynthesizeSpeechCommand): Promise<{ AudioStream?: unknown }> };

/** The `SynthesizeSpeech` request of one part. */
export const pollyRequest = (
  text: string,
  voice: VoiceProfile,
  format: SpeechFormat,
): SynthesizeSpeechCommandInput => ({
  Text: text,
  TextType: 'text',
  VoiceId: voice.polly.voiceId as SynthesizeSpeechCommandInput['VoiceId'],
  Engine: voice.polly.engine,
  OutputFormat: format === 'wav' ? 'pcm' : format,
  ...(format === 'wav' ? { SampleRate: String(PCM_RATE) } : {}),
});

const bytesOf = async (stream: unknown): Promise<Uint8Array> => {
  const body = stream as { transformToByteArray?: () => Promise<Uint8Array> } | undefined;
  if (!body?.transformToByteArray) throw new Error('Polly returned no audio stream');
  return body.transformToByteArray();
};

/** A canonical 44-byte WAV header for 16-bit mono PCM. */
export const wavHeader = (dataBytes: number, rate = PCM_RATE): Buffer => {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(dataBytes, 40);
  return h;
};

/** Layer III bitrates (kbps) of MPEG-1 (version bits 3) and MPEG-2/2.5. */
const MP3_BITRATES: Record<'v1' | 'v2', number[]> = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MP3_RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** Seconds of an MPEG-2/2.5 or MPEG-1 layer III stream, counted frame by frame. */
export const mp3Seconds = (data: Uint8Array): number => {
  let seconds = 0;
  let i = 0;
  while (i + 4 <= data.length) {
    const b1 = data[i + 1] as number;
    if (data[i] !== 0xff || (b1 & 0xe0) !== 0xe0) {
      i++;
      continue;
    }
    const version = (b1 >> 3) & 3;
    const b2 = data[i + 2] as number;
    const rate = MP3_RATES[version]?.[(b2 >> 2) & 3];
    const bitrate = MP3_BITRATES[version === 3 ? 'v1' : 'v2'][(b2 >> 4) & 15];
    if (!rate || !bitrate) {
      i++;
      continue;
    }
    const samples = version === 3 ? 1152 : 576;
    const length = Math.floor(((samples / 8) * bitrate * 1000) / rate) + ((b2 >> 1) & 1);
    seconds += samples / rate;
    i += Math.max(length, 1);
  }
  return seconds;
};

/** Seconds of chained Ogg Opus streams: each stream's last granule position (48 kHz) less its pre-skip. */
export const oggOpusSeconds = (streams: readonly Uint8Array[]): number =>
  streams.reduce((sum, data) => {
    const buffer = Buffer.from(data);
    let granule = 0n;
    for (let i = buffer.indexOf('OggS'); i >= 0 && i + 14 <= buffer.length; i = buffer.indexOf('OggS', i + 4))
      granule = buffer.readBigInt64LE(i + 6) > granule ? buffer.readBigInt64LE(i + 6) : granule;
    const head = buffer.indexOf('OpusHead');
    const preSkip = head >= 0 ? buffer.readUInt16LE(head + 10) : 0;
    return sum + Math.max(0, Number(granule) - preSkip) / 48_000;
  }, 0);

export const pollyEngineWith = (client: Sender): SpeechEngine => ({
  synthesize: async ({ parts, voice, format, dir }) => {
    const audio: Uint8Array[] = [];
    for (const part of parts) {
      const out = await client.send(new SynthesizeSpeechCommand(pollyRequest(part, voice, format)));
      audio.push(await bytesOf(out.AudioStream));
    }
    const data = Buffer.concat(audio);
    const file = join(dir, `speech.${format === 'ogg_opus' ? 'ogg' : format}`);
    let durationSeconds: number;
    if (format === 'wav') {
      await writeFile(file, Buffer.concat([wavHeader(data.length), data]));
      durationSeconds = data.length / (PCM_RATE * 2);
    } else {
      await writeFile(file, data);
      durationSeconds = format === 'mp3' ? mp3Seconds(data) : oggOpusSeconds(audio);
    }
    return { file, durationSeconds: Math.round(durationSeconds * 1000) / 1000 };
  },
});

let engine: SpeechEngine | undefined;
export const pollyEngine = (): SpeechEngine => {
  engine ??= pollyEngineWith(new PollyClient({}));
  return engine;
};
