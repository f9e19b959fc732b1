import { createHash } from 'node:crypto';
import { deleteObject, putObject } from '../aws/s3';
import { stopExecution } from '../aws/step-functions';
import { getItemsByKey } from '../data/batch';
import { companyEntry } from '../data/companies';
import { JobQueueFullError, JobTransitionRefusedError } from '../data/job-lifecycle';
import {
  cancelSpeechJob,
  failSpeechJob,
  getSpeechJob,
  listSpeechJobs,
  type SpeechJobRecord,
  speechJobReuseEntry,
  speechJobs,
  toPublicSpeechJob,
} from '../data/speech-jobs';
import { applyChange } from '../data/update-expression';
import { secondsToNextUtcMonth, usageMonthEntry } from '../data/usage-meters';
import { env } from '../env';
import { AppError, NotFoundError, ValidationError } from '../errors';
import { ulid } from '../ids';
import { logger } from '../logger';
import { companyObjectPrefix } from '../types/object-prefixes';
import {
  SPEECH_JOB_FINISHED,
  SPEECH_JOB_MAX_CHARACTERS,
  SPEECH_JOB_MAX_TEXT_BYTES,
} from '../types/speech-jobs';
import type { SpeechFormat } from '../types/speech-voices';
import { limitsOf } from './company-limits';
import { startJobAttempt } from './job-executions';
import { checkedCursor, DEFAULT_JOB_PAGE, type PageRequest } from './pages';
import { voiceOf } from './speech';
import { characterCount, hasSpeakableCharacter, SPEECH_TEXT_SILENT_MESSAGE } from './speech-request';
import { rewriteMarkdown } from './spoken-text';

/**
 * Long-form speech jobs as the routes, the workflow action and the MCP read tool see them. Decisions where the
 * issue is silent:
 * - The spoken text is `text` as sent, or the spoken form of `markdown` (the rewrite of POST /v1/spoken-text
 *   without its token cap); either is at most 100,000 characters (code points) after the rewrite, and at most
 *   SPEECH_JOB_MAX_TEXT_BYTES in UTF-8. The text is stored beside the job (`speech-jobs/<jobId>/input.txt`).
 * - Enqueue reads the company, the usage month and the reuse entry of the same request in one batch: when no
 *   earlier result may be reused, 429 `speech_quota_exceeded` (Retry-After: to the next UTC month) if the
 *   characters would pass the month's allowance; 429 `speech_job_queue_full` at `speechJobQueueCap`.
 * - Cancel of a finished job: 409 `speech_job_not_cancelable` with the job's `status`. No retry: a failed or
 *   canceled job is enqueued again (an identical finished one is then reused, billed 0).
 */
export const QUEUE_RETRY_AFTER_SECONDS = 30;

export const newSpeechJobId = () => `sj_${ulid()}`;

export { toPublicSpeechJob };
export type PublicSpeechJob = ReturnType<typeof toPublicSpeechJob>;

export interface SpeechJobInput {
  text?: string | undefined;
  markdown?: string | undefined;
  voiceProfileId?: string | undefined;
  format?: SpeechFormat | undefined;
}

/** The text to speak: `text` as sent or the spoken form of `markdown`, within the job's limits. */
export const spokenTextOf = async (input: SpeechJobInput): Promise<string> => {
  const pointer = input.markdown === undefined ? '/body/text' : '/body/markdown';
  const text = input.markdown === undefined ? (input.text ?? '') : await rewriteMarkdown(input.markdown);
  if (!hasSpeakableCharacter(text)) throw new ValidationError([{ pointer, message: SPEECH_TEXT_SILENT_MESSAGE }]);
  const characters = characterCount(text);
  if (characters > SPEECH_JOB_MAX_CHARACTERS) {
    throw new ValidationError([
      {
        pointer,
        message: `The spoken text has ${characters} characters; a speech job takes at most ${SPEECH_JOB_MAX_CHARACTERS}.`,
      },
    ]);
  }
  if (Buffer.byteLength(text) > SPEECH_JOB_MAX_TEXT_BYTES) {
    throw new ValidationError([
      { pointer, message: `The spoken text is over ${SPEECH_JOB_MAX_TEXT_BYTES} bytes in UTF-8.` },
    ]);
  }
  return text;
};

/** `companies/<companyId>/speech-jobs/<jobId>/`: the job's folder (its text, and one folder per attempt). */
export const speechJobFolder = (job: Pick<SpeechJobRecord, 'companyId' | 'jobId'>) =>
  `${companyObjectPrefix(job.companyId, 'speechJobs')}${job.jobId}/`;

/** `…/speech-jobs/<jobId>/a<attempt>/`: where an attempt's audio and timing file are written. */
export const speechJobAttemptFolder = (job: Pick<SpeechJobRecord, 'companyId' | 'jobId' | 'attempt'>) =>
  `${speechJobFolder(job)}a${job.attempt}/`;

const startAttempt = (job: SpeechJobRecord, now: Date): Promise<SpeechJobRecord> =>
  startJobAttempt({
    machine: 'speech-job',
    job,
    fail: (error) => failSpeechJob({ job, error, now }),
    message: 'The speech job could not be started; enqueue it again.',
  });

export const enqueueSpeechJob = async (
  companyId: string,
  input: SpeechJobInput,
  now: Date,
): Promise<SpeechJobRecord> => {
  const voice = voiceOf(input.voiceProfileId);
  const text = await spokenTextOf(input);
  const characters = characterCount(text);
  const iso = now.toISOString();
  const jobId = newSpeechJobId();
  const bucket = env().bucketName;
  const job: SpeechJobRecord = {
    jobId,
    companyId,
    status: 'pending',
    voiceProfileId: voice.id,
    format: input.format ?? 'mp3',
    characters,
    textSha256: createHash('sha256').update(text).digest('hex'),
    input: { bucket, fullPath: `${speechJobFolder({ companyId, jobId })}input.txt` },
    progress: { phase: 'pending' },
    attempt: 1,
    reused: false,
    billedSeconds: 0,
    billedCharacters: 0,
    createdAt: iso,
    updatedAt: iso,
    attemptStartedAt: iso,
  };
  const [company, month, reuse] = await getItemsByKey([
    companyEntry(companyId),
    usageMonthEntry(companyId, now),
    speechJobReuseEntry(job),
  ]);
  const limits = await limitsOf(companyId, company);
  const used = month?.figure(voice.meter) ?? 0;
  if (!reuse && used + characters > limits.speechCharactersPerMonth) {
    throw new AppError('speech_quota_exceeded', 'The monthly speech characters of your plan are used up.', {
      retryAfterSeconds: secondsToNextUtcMonth(now),
      extensions: { meter: voice.meter, limit: limits.speechCharactersPerMonth, used, characters },
    });
  }
  await putObject(bucket, job.input.fullPath, text, 'text/plain; charset=utf-8');
  try {
    await speechJobs.createJob(job, limits.speechJobQueueCap);
  } catch (error) {
    await deleteObject(bucket, job.input.fullPath).catch(() => undefined);
    if (error instanceof JobQueueFullError) {
      throw new AppError('speech_job_queue_full', 'Too many unfinished speech jobs; wait for one to finish.', {
        retryAfterSeconds: QUEUE_RETRY_AFTER_SECONDS,
        extensions: { limit: limits.speechJobQueueCap },
      });
    }
    throw error;
  }
  return startAttempt(job, now);
};

export const getSpeechJobOf = async (companyId: string, jobId: string): Promise<SpeechJobRecord> => {
  const job = await getSpeechJob(companyId, jobId);
  if (!job) throw new NotFoundError('No speech job with this id.');
  return job;
};

const isFinished = (status: string) => (SPEECH_JOB_FINISHED as readonly string[]).includes(status);

/**
 * Cancel: a conditional write from the observed unfinished state to `canceled` (clearing the lease and
 * releasing the queue slot), then StopExecution, which stops the synthesis. A job that moved on between the
 * read and the write is read again, so a race with a worker resolves to exactly one final state.
 */
export const cancelSpeechJobOf = async (companyId: string, jobId: string, now: Date) => {
  for (let round = 0; round < 5; round++) {
    const job = await getSpeechJobOf(companyId, jobId);
    if (isFinished(job.status)) {
      throw new AppError('speech_job_not_cancelable', `The job is already ${job.status}.`, {
        extensions: { jobStatus: job.status },
      });
    }
    let canceled: SpeechJobRecord;
    try {
      canceled = applyChange(job, await cancelSpeechJob({ job, now }));
    } catch (error) {
      if (error instanceof JobTransitionRefusedError) continue;
      throw error;
    }
    if (job.executionArn) {
      await stopExecution(job.executionArn, 'canceled by the tenant').catch((error: unknown) =>
        logger.error('stopping a canceled speech job failed', { jobId, error: error as Error }),
      );
    }
    return canceled;
  }
  throw new AppError('conflict', 'The job changed while it was being canceled; try again.');
};

/** `GET /v1/speech/jobs`: the company's speech jobs, newest first, by the one paging rule. */
export const listSpeechJobsOf = async (companyId: string, request: PageRequest) => {
  const { jobs, nextCursor } = await listSpeechJobs(companyId, {
    limit: request.limit ?? DEFAULT_JOB_PAGE,
    cursor: checkedCursor(request.cursor, 'sj_'),
  });
  return { jobs: jobs.map(toPublicSpeechJob), nextCursor };
};
