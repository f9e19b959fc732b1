import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { espeakEngine, speakParts } from '../../functions/local/speech-synthesis';
import { espeakVoiceOf } from '../../functions/local/speech-voices';
import { VOICE_PROFILES } from '../../functions/shared/types/speech-voices';

/**
 * The local engine gives every voice of the catalogue a voice of its own: espeak-ng silently ignores a
 * variant it cannot apply (`en-gb+f3` spoke exactly as `en-gb+m3`), so the audio itself is compared.
 */
const TEXT = 'Your order has shipped and will arrive on Tuesday.';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'voices-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

/** The catalogue's voices as the engine speaks them: voice id → digest of the WAV file. */
const spoken = async () => {
  const digests = new Map<string, string>();
  for (const voice of VOICE_PROFILES) {
    const out = join(dir, voice.id);
    const { file } = await espeakEngine.synthesize({
      parts: [TEXT],
      voice,
      format: 'wav',
      dir: await mkdtemp(`${out}-`),
    });
    digests.set(voice.id, await sha256(file));
  }
  return digests;
};

describe('local speech engine voices (espeak-ng)', () => {
  it('maps every voice profile of the catalogue to an espeak-ng voice, and refuses an unknown one', () => {
    expect(VOICE_PROFILES.map((v) => espeakVoiceOf(v).length > 0)).toEqual(VOICE_PROFILES.map(() => true));
    expect(() => espeakVoiceOf({ id: 'xx-XX-nobody' })).toThrow(/xx-XX-nobody/);
  });

  it('speaks the same text differently in every pair of voices of the catalogue', async () => {
    const digests = await spoken();
    const pairs = VOICE_PROFILES.flatMap((a, i) => VOICE_PROFILES.slice(i + 1).map((b) => [a.id, b.id]));
    expect(pairs).toHaveLength((VOICE_PROFILES.length * (VOICE_PROFILES.length - 1)) / 2);
    const same = pairs.filter(([a, b]) => digests.get(a as string) === digests.get(b as string));
    expect(same).toEqual([]);
  }, 60_000);

  it.each(VOICE_PROFILES.map((v) => [v.id, espeakVoiceOf(v)] as const))(
    '%s applies its variant (%s differs from its voice without it)',
    async (_id, espeak) => {
      const base = espeak.split('+')[0] as string;
      expect(base).not.toBe(espeak);
      const [withVariant, without] = await Promise.all([
        speakParts([TEXT], espeak, await mkdtemp(join(dir, 'variant-'))),
        speakParts([TEXT], base, await mkdtemp(join(dir, 'base-'))),
      ]);
      expect(await sha256(withVariant[0] as string)).not.toBe(await sha256(without[0] as string));
    },
    30_000,
  );
});
