import {
  type TranscriptionJobRecord,
  type TranscriptionReuseEntry,
  type TranscriptionStatus,
  transcriptionStore,
} from '../data/transcription-jobs';
import { AppError } from '../errors';
import { DEFAULT_TRANSCRIPTION_LANGUAGE, type TranscriptionLanguage } from '../types/transcriptions';
import { transcriptionEngine } from './engines';
import { getJob, type JobListRequest, listJobs } from './jobs/commands';
import { enqueueJob } from './jobs/enqueue';
import { defineJobType } from './jobs/job-type';
import { type PublicTranscription, toPublicTranscription } from './jobs/public-views';

/**
 * Transcription jobs: a job type of the engine (`domain/jobs/`). Decisions where the spec is silent:
 * - States: `pending` → `transcribing` → `done` | `failed`. No cancel or retry: a failed job is enqueued
 *   again (a new job), and a source transcribed before in the same language is then reused, unbilled.
 * - 429 `transcription_quota_exceeded` once the month's `transcription_seconds` reached the allowance, 429
 *   `transcription_queue_full` at `transcriptionQueueCap` unfinished jobs.
 * - `language` is a code of TRANSCRIPTION_LANGUAGES or `auto`, as far as the registered engine accepts it
 *   (`engines.ts`: Transcribe takes them all); a language it does not take answers 400 naming those it does.
 * - Size, duration and "is it audio" are checked by the probe step.
 */

const TRANSCRIPTION_FAILED = {
  code: 'transcription_failed',
  message: 'The speech engine could not transcribe the source.',
};

export const transcriptionJobs = defineJobType<
  TranscriptionStatus,
  TranscriptionJobRecord,
  TranscriptionReuseEntry,
  PublicTranscription
>({
  idPrefix: 'tr_',
  noun: 'transcription',
  activity: 'transcription',
  retryHint: 'enqueue it again',
  machine: 'transcription',
  store: transcriptionStore,
  view: toPublicTranscription,
  limits: { quota: (l) => l.transcriptionSecondsPerMonth, queueCap: (l) => l.transcriptionQueueCap },
  codes: { quotaExceeded: 'transcription_quota_exceeded', queueFull: 'transcription_queue_full' },
  errors: {
    table: {
      TranscriptionEngineFailed: TRANSCRIPTION_FAILED,
      SourceNoAudio: { code: 'source_no_audio', message: 'The source has no audio stream to transcribe.' },
      OutputMissing: { code: 'transcription_failed', message: 'The speech engine produced no transcript.' },
    },
    enginePrefix: 'Transcribe.',
    engineFailed: TRANSCRIPTION_FAILED,
    gone: 'TranscriptionJobGone',
  },
});

/** The languages the running engine accepts (`auto` only where it can identify the language). */
export const acceptedLanguages = (): readonly TranscriptionLanguage[] => transcriptionEngine().languages;

const checkLanguage = (language: TranscriptionLanguage) => {
  const accepted = acceptedLanguages();
  if (accepted.includes(language)) return;
  throw new AppError('validation_failed', `This engine transcribes only: ${accepted.join(', ')}.`, {
    errors: [
      {
        pointer: '/body/language',
        message: `Unsupported language ${language}; supported: ${accepted.join(', ')}.`,
      },
    ],
    extensions: { supportedLanguages: accepted },
  });
};

export const enqueueTranscription = (
  companyId: string,
  input: { fullPath: string; bucket?: string | undefined; language?: TranscriptionLanguage | undefined },
  now: Date,
): Promise<TranscriptionJobRecord> => {
  const language = input.language ?? DEFAULT_TRANSCRIPTION_LANGUAGE;
  checkLanguage(language);
  return enqueueJob(transcriptionJobs, companyId, { source: input, fields: () => ({ language }) }, now);
};

export const getTranscription = (companyId: string, jobId: string) =>
  getJob(transcriptionJobs, companyId, jobId);

export const listTranscriptions = (companyId: string, request: JobListRequest) =>
  listJobs(transcriptionJobs, companyId, request);
