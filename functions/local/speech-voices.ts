import type { VoiceProfile } from '../shared/types/speech-voices';

/**
 * The espeak-ng voice of each voice profile of the catalogue (by profile id), `<voice file>+<variant>`. The
 * voice is named by its file under `espeak-ng-data/voices` (`gmw/en`, `gmw/en-US`), not by a language:
 * espeak-ng 1.51 drops the variant of a language name such as `en-gb+f3`, so Amy and Brian spoke with the
 * same voice.
 */
const ESPEAK_VOICES: Readonly<Record<string, string>> = {
  'en-US-joanna': 'gmw/en-US+f3',
  'en-US-matthew': 'gmw/en-US+m3',
  'en-GB-amy': 'gmw/en+f3',
  'en-GB-brian': 'gmw/en+m3',
};

/** The espeak-ng voice that speaks `voice` locally; a profile without one is a defect of this table. */
export const espeakVoiceOf = (voice: Pick<VoiceProfile, 'id'>): string => {
  const espeak = ESPEAK_VOICES[voice.id];
  if (!espeak) throw new Error(`No espeak-ng voice for voice profile ${voice.id}`);
  return espeak;
};
