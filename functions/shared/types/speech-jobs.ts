import type { SpeechFormat } from './speech-voices';

/**
 * Long-form speech jobs (`POST /v1/speech/jobs`): what the routes, the data module, the worker and the local
 * engine share. Pure: imports nothing of ours but types.
 */
export const SPEECH_JOB_MAX_CHARACTERS = 100_000;

/**
 * Most UTF-8 bytes of the spoken text: the text travels in the state machine's input to Polly's
 * `StartSpeechSynthesisTask` (Step Functions carries at most 256 KiB per state), so text of many multi-byte
 * characters is refused at enqueue even within 100,000 characters. English text is one byte a character.
 */
export const SPEECH_JOB_MAX_TEXT_BYTES = 200_000;

export const SPEECH_JOB_UNFINISHED = ['pending', 'synthesizing'] as const;
export const SPEECH_JOB_FINISHED = ['done', 'failed', 'canceled'] as const;
export const SPEECH_JOB_STATUSES = [...SPEECH_JOB_UNFINISHED, ...SPEECH_JOB_FINISHED] as const;
export type SpeechJobStatus = (typeof SPEECH_JOB_STATUSES)[number];

export interface SpeechJobFile {
  bucket: string;
  fullPath: string;
}

/** One sentence of the timing file: its text, start and end in milliseconds from the start of the audio. */
export interface SentenceTiming {
  text: string;
  start: number;
  end: number;
}

/**
 * A `done` job's result: the audio and the JSON timing file, both stored objects of the company; a job asked
 * without timings (`timings: false`) has no timing file (absent in the record, `null` in the job's view).
 */
export interface SpeechJobResult {
  audio: SpeechJobFile & { size: number; format: SpeechFormat };
  timings?: SpeechJobFile & { sentences: number };
}

/**
 * A speech mark of Polly (`SpeechMarkTypes: ["sentence"]`, one JSON object a line): `time` in milliseconds
 * from the start of the audio. The local engine writes the same lines.
 */
export interface SentenceMark {
  time: number;
  type: 'sentence';
  start: number;
  end: number;
  value: string;
}
