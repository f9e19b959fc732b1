import type { MeterName } from './meters';

/** Audio formats of `POST /v1/speech`. */
export const SPEECH_FORMATS = ['mp3', 'ogg_opus', 'wav'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

export const SPEECH_FORMAT_FILES: Record<SpeechFormat, { extension: string; contentType: string }> = {
  mp3: { extension: 'mp3', contentType: 'audio/mpeg' },
  ogg_opus: { extension: 'ogg', contentType: 'audio/ogg' },
  wav: { extension: 'wav', contentType: 'audio/wav' },
};

/**
 * One voice profile: what the catalog shows, and the Polly voice it is on AWS. An engine that runs in Polly's
 * place maps the profile's `id` to a voice of its own.
 */
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
