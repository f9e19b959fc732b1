import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  PollyClient,
  SynthesizeSpeechCommand,
  type SynthesizeSpeechCommandInput,
} from '@aws-sdk/client-polly';
import { mp3Seconds, oggOpusSeconds, PCM_SAMPLE_RATE, wavHeader } from '../audio-frames';
import type { SpeechEngine, SpeechFormat, VoiceProfile } from '../types/speech-voices';

export { mp3Seconds, oggOpusSeconds, wavHeader };

/**
 * Amazon Polly as the speech engine. `SynthesizeSpeech` takes at most 3000 billed characters per call, so each
 * part is one call; the parts are joined without re-encoding:
 * - `wav`: each part as 16 kHz 16-bit mono PCM, concatenated behind one WAV header;
 * - `mp3`: MPEG audio frames, which concatenate into one valid stream;
 * - `ogg_opus`: Ogg streams, chained one after the other (RFC 7845 §3), which decoders play in sequence.
 */
const PCM_RATE = PCM_SAMPLE_RATE;

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
