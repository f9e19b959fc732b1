import type { MeterName } from './meters';

/** Audio formats of `POST /v1/speech`. */
export const SPEECH_FORMATS = ['mp3', 'ogg_opus', 'wav'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

export const SPEECH_FORMAT_FILES: Record<SpeechFormat, { extension: string; contentType: string }> = {
  mp3: { extension: 'mp3', contentType: 'audio/mpeg' },
  ogg_opus: { extension: 'ogg', contentType: 'audio/ogg' },
  wav: { extension: 'wav', contentType: 'audio/wav' },
};

/** One voice profile: what the catalog shows, and the voice each engine uses for it. */
export interface VoiceProfile {
  id: string;
  name: string;
  language: string;
  gender: 'female' | 'male';
  /** Polly engine: it decides the meter that is billed. */
  engine: 'standard';
  meter: MeterName;
  default: boolean;
  polly: { voiceId: string; engine: 'standard' };
  /**
   * espeak-ng voice of the local stack, `<voice file>+<variant>`. The voice is named by its file under
   * `espeak-ng-data/voices` (`gmw/en`, `gmw/en-US`), not by a language: espeak-ng 1.51 drops the variant of a
   * language name such as `en-gb+f3`, so Amy and Brian spoke with the same voice.
   */
  espeak: string;
}

export const VOICE_PROFILES: readonly VoiceProfile[] = [
  {
    id: 'en-US-joanna',
    name: 'Joanna',
    language: 'en-US',
    gender: 'female',
    engine: 'standard',
    meter: 'speech_characters',
    default: true,
    polly: { voiceId: 'Joanna', engine: 'standard' },
    espeak: 'gmw/en-US+f3',
  },
  {
    id: 'en-US-matthew',
    name: 'Matthew',
    language: 'en-US',
    gender: 'male',
    engine: 'standard',
    meter: 'speech_characters',
    default: false,
    polly: { voiceId: 'Matthew', engine: 'standard' },
    espeak: 'gmw/en-US+m3',
  },
  {
    id: 'en-GB-amy',
    name: 'Amy',
    language: 'en-GB',
    gender: 'female',
    engine: 'standard',
    meter: 'speech_characters',
    default: false,
    polly: { voiceId: 'Amy', engine: 'standard' },
    espeak: 'gmw/en+f3',
  },
  {
    id: 'en-GB-brian',
    name: 'Brian',
    language: 'en-GB',
    gender: 'male',
    engine: 'standard',
    meter: 'speech_characters',
    default: false,
    polly: { voiceId: 'Brian', engine: 'standard' },
    espeak: 'gmw/en+m3',
  },
];

export const DEFAULT_VOICE_PROFILE = VOICE_PROFILES.find((v) => v.default) as VoiceProfile;

/** One synthesis engine: the parts of a text (each within one call's limit) → one joined audio file in `dir`. */
export interface SpeechEngine {
  synthesize(input: {
    parts: readonly string[];
    voice: VoiceProfile;
    format: SpeechFormat;
    dir: string;
  }): Promise<{ file: string; durationSeconds: number }>;
}
