/**
 * Durations and headers of the audio the speech engines write, read from the bytes (no decoder): Polly's PCM
 * (16 kHz, 16-bit mono) behind a WAV header, MPEG layer III frames, Ogg Opus pages. Pure: the synchronous
 * speech engine and the speech job worker both use it.
 */
export const PCM_SAMPLE_RATE = 16_000;

/** A canonical 44-byte WAV header for 16-bit mono PCM. */
export const wavHeader = (dataBytes: number, rate = PCM_SAMPLE_RATE): Buffer => {
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

/** Seconds of stored audio, read from its bytes (no decoder): 16 kHz 16-bit mono PCM (`wav` without its
 * header, as Polly's `pcm`), MP3 frames, or Ogg Opus pages. */
export const audioSeconds = (format: 'wav' | 'mp3' | 'ogg_opus', data: Uint8Array): number =>
  format === 'wav'
    ? data.length / (PCM_SAMPLE_RATE * 2)
    : format === 'mp3'
      ? mp3Seconds(data)
      : oggOpusSeconds([data]);
