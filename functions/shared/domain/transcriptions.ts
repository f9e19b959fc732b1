import { getItemsByKey } from '../data/batch';
import { companyEntry } from '../data/companies';
import { JobQueueFullError } from '../data/jobs/lifecycle';
import { type StoredObject, storedObjectEntry } from '../data/stored-objects';
import {
  failTranscriptionJob,
  getTranscriptionJob,
  type TranscriptionJobRecord,
  toPublicTranscription,
  transcriptionJobs,
} from '../data/transcription-jobs';
import { secondsToNextUtcMonth, usageMonthEntry } from '../data/usage-meters';
import { env } from '../env';
import { AppError, NotFoundError } from '../errors';
import { ulid } from '../ids';
import type { PlanLimits } from '../types/plans';
import {
  DEFAULT_TRANSCRIPTION_LANGUAGE,
  LOCAL_TRANSCRIPTION_LANGUAGES,
  TRANSCRIPTION_LANGUAGES,
  type TranscriptionLanguage,
} from '../types/transcriptions';
import { companyLimits, limitsOf } from './company-limits';
import { jobExecutionName, startJobAttempt } from './job-executions';
import { parseStorageReference } from './storage-references';

/**
 * Transcription jobs as the API routes see them. Decisions where the spec is silent:
 * - States: `pending` → `transcribing` → `done` | `failed`. No cancel or retry: a failed job is enqueued
 *   again (a new job), and a source transcribed before in the same language is then reused, unbilled.
 * - Enqueue refuses with 429 `transcription_quota_exceeded` (Retry-After: to the next UTC month) once the
 *   month's billed `transcription_seconds` reached the plan's allowance, and with 429
 *   `transcription_queue_full` (Retry-After: QUEUE_RETRY_AFTER_SECONDS) at `transcriptionQueueCap`.
 * - `language` is a code of TRANSCRIPTION_LANGUAGES or `auto`; the local engine (pocketsphinx) knows only
 *   LOCAL_TRANSCRIPTION_LANGUAGES and cannot identify languages, and answers 400 naming them.
 * - Size, duration and "is it audio" are checked by the probe step: the job becomes `failed` with
 *   `source_too_large`, `source_too_long`, `source_unreadable` or `source_no_audio`.
 */
export const QUEUE_RETRY_AFTER_SECONDS = 30;

export const transcriptionExecutionName = jobExecutionName;
export const newTranscriptionJobId = () => `tr_${ulid()}`;

export { toPublicTranscription };
export type PublicTranscription = ReturnType<typeof toPublicTranscription>;

/** The languages the running engine accepts (`auto` only where it can identify the language). */
export const acceptedLanguages = (): readonly TranscriptionLanguage[] =>
  env().transcriptionEngine === 'pocketsphinx'
    ? LOCAL_TRANSCRIPTION_LANGUAGES
    : [...TRANSCRIPTION_LANGUAGES, 'auto'];

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

/** The company's resolved limits (plan with overrides). */
export const transcriptionLimits = (companyId: string): Promise<PlanLimits> => companyLimits(companyId);

/** Starts the job's execution; a start that fails marks the job `failed` so its slot is released. */
const startAttempt = (job: TranscriptionJobRecord, now: Date): Promise<TranscriptionJobRecord> =>
  startJobAttempt({
    machine: 'transcription',
    job,
    fail: (error) => failTranscriptionJob({ job, error, now }),
    message: 'The transcription could not be started; enqueue it again.',
  });

export const enqueueTranscription = async (
  companyId: string,
  input: { fullPath: string; bucket?: string | undefined; language?: TranscriptionLanguage | undefined },
  now: Date,
): Promise<TranscriptionJobRecord> => {
  const language = input.language ?? DEFAULT_TRANSCRIPTION_LANGUAGE;
  checkLanguage(language);
  // The source is one of the caller's stored objects: malformed → 400, another tenant's or missing → 404.
  const reference = parseStorageReference(companyId, {
    fullPath: input.fullPath,
    ...(input.bucket === undefined ? {} : { bucket: input.bucket }),
  });
  // One BatchGetItem: the company (plan, overrides), the usage month and the source object.
  const [company, month, item] = await getItemsByKey([
    companyEntry(companyId),
    usageMonthEntry(companyId, now),
    storedObjectEntry(companyId, reference.fullPath),
  ]);
  const limits = await limitsOf(companyId, company);
  const stored: StoredObject | undefined = item;
  if (!stored) throw new NotFoundError('No stored object at this reference.');
  const used = month?.figure('transcription_seconds') ?? 0;
  if (used >= limits.transcriptionSecondsPerMonth) {
    throw new AppError(
      'transcription_quota_exceeded',
      'The monthly transcription seconds of your plan are used up.',
      {
        retryAfterSeconds: secondsToNextUtcMonth(now),
        extensions: {
          meter: 'transcription_seconds',
          limit: limits.transcriptionSecondsPerMonth,
          used,
        },
      },
    );
  }
  const iso = now.toISOString();
  const job: TranscriptionJobRecord = {
    jobId: newTranscriptionJobId(),
    companyId,
    status: 'pending',
    language,
    source: {
      bucket: reference.bucket,
      fullPath: reference.fullPath,
      size: stored.size,
      etag: stored.etag,
      contentType: stored.contentType,
    },
    progress: { phase: 'pending' },
    attempt: 1,
    reused: false,
    billedSeconds: 0,
    createdAt: iso,
    updatedAt: iso,
    attemptStartedAt: iso,
  };
  try {
    await transcriptionJobs.createJob(job, limits.transcriptionQueueCap);
  } catch (error) {
    if (error instanceof JobQueueFullError) {
      throw new AppError(
        'transcription_queue_full',
        'Too many unfinished transcription jobs; wait for one to finish.',
        { retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS, extensions: { limit: limits.transcriptionQueueCap } },
      );
    }
    throw error;
  }
  return startAttempt(job, now);
};

export const getTranscription = async (companyId: string, jobId: string): Promise<TranscriptionJobRecord> => {
  const job = await getTranscriptionJob(companyId, jobId);
  if (!job) throw new NotFoundError('No transcription job with this id.');
  return job;
};
