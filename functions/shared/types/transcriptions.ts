/**
 * Transcription jobs: the languages a job can ask for and the shape of its result. Pure: the data, domain,
 * worker and route layers share these shapes.
 */

/** BCP-47 codes of the published list (Amazon Transcribe batch languages offered by the platform). */
export const TRANSCRIPTION_LANGUAGES = [
  'en-US',
  'en-GB',
  'en-AU',
  'en-IN',
  'de-DE',
  'fr-FR',
  'fr-CA',
  'es-ES',
  'es-US',
  'it-IT',
  'pt-BR',
  'pt-PT',
  'nl-NL',
  'ja-JP',
  'ko-KR',
  'zh-CN',
  'hi-IN',
  'ar-SA',
] as const;
export type TranscriptionLanguageCode = (typeof TRANSCRIPTION_LANGUAGES)[number];

/** What a job asks for: one code of the list, or `auto` (the engine identifies the language). */
export type TranscriptionLanguage = TranscriptionLanguageCode | 'auto';

export const DEFAULT_TRANSCRIPTION_LANGUAGE: TranscriptionLanguageCode = 'en-US';

/** One recognised word: seconds from the start of the audio, confidence from 0 to 1. */
export interface TranscriptWord {
  text: string;
  start: number;
  end: number;
  confidence: number;
}

/** A stored file of the result. */
export interface TranscriptFile {
  bucket: string;
  fullPath: string;
}

export interface TranscriptionResult {
  /** The whole transcript (or its first part when `textTruncated`; the JSON file holds all of it). */
  text: string;
  textTruncated: boolean;
  /** The words in order; `null` when there are too many for the job item (they are in the JSON file). */
  words: TranscriptWord[] | null;
  /** True when `words` is null because the words are only in the JSON file. */
  wordsInFile: boolean;
  wordCount: number;
  /** The language transcribed (the identified one for `auto`). */
  language: string;
  files: { json: TranscriptFile; srt: TranscriptFile; vtt: TranscriptFile };
}
