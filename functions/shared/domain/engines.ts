import type { SpeechEngine } from '../types/speech-voices';
import { TRANSCRIPTION_LANGUAGES, type TranscriptionLanguage } from '../types/transcriptions';

/**
 * The engines behind transcriptions and speech as product code sees them: what each accepts and how often its
 * running work is checked, never its name. The defaults are the AWS services the state machines call (Amazon
 * Transcribe, Amazon Polly). A runtime that puts other engines behind the same tasks registers their profiles
 * once, at start-up, before any request or task runs (`registerEngines`); product code only asks
 * (`transcriptionEngine()`, `speechEngine()`). This module is the one place of the engines' poll intervals.
 */
export interface TranscriptionEngineProfile {
  /** The languages a job may ask for: `auto` only where the engine identifies the language. */
  languages: readonly TranscriptionLanguage[];
  /** Seconds between two status checks of a running transcription (the machine's Wait). */
  pollSeconds: number;
}

export interface SpeechEngineProfile {
  /** The synthesizer of `POST /v1/speech`; Polly's (`domain/speech.ts`) unless one is registered. */
  synthesizer?: () => Promise<SpeechEngine>;
  /** Seconds of the first wait between two checks of a long-form synthesis task (doubled up to 32 s). */
  jobPollSeconds: number;
}

export interface EngineProfiles {
  transcription: TranscriptionEngineProfile;
  speech: SpeechEngineProfile;
}

const AWS_ENGINES: EngineProfiles = {
  // Amazon Transcribe takes every published language and identifies languages (`auto`). It takes minutes,
  // so a check every 15 s costs little and adds at most 15 s.
  transcription: { languages: [...TRANSCRIPTION_LANGUAGES, 'auto'], pollSeconds: 15 },
  // Amazon Polly takes about a minute for a long text: checked after 4 s, then 8, 16, 32.
  speech: { jobPollSeconds: 4 },
};

let engines: EngineProfiles = AWS_ENGINES;

/** Puts other engines in place of the AWS services, for this process. */
export const registerEngines = (profiles: Partial<EngineProfiles>): void => {
  engines = { ...engines, ...profiles };
};

export const transcriptionEngine = (): TranscriptionEngineProfile => engines.transcription;

export const speechEngine = (): SpeechEngineProfile => engines.speech;
