import { headObject } from '../aws/s3-objects';
import { SPEECH_JOB_STORE, type SpeechJobRecord, type SpeechJobReuseEntry } from '../data/speech-jobs';
import { env } from '../env';
import { companyObjectPrefix } from '../types/object-prefixes';
import type { SpeechJobStatus } from '../types/speech-jobs';
import { defineJobType } from './jobs/job-type';
import { deleteIntermediateFile } from './jobs/output-files';
import { type PublicSpeechJob, toPublicSpeechJob } from './jobs/public-views';

/**
 * Long-form speech jobs, a job type of the job engine (`jobs/`): the engine enqueues (quota, queue slot,
 * reuse of an identical finished job billed 0, Idempotency-Key), reads, lists, cancels, runs the worker shell
 * and recovers; the type supplies its input (below), its reuse key (spoken text, voice, format, timings), its
 * steps (`workers/speech-job/`), its meter (`speech_characters`: the characters of the spoken text) and its
 * output files (the audio and, unless asked without, the timing file). Decisions where the issue is silent:
 * - The request (`speech-job-requests.ts`): `text`, or the spoken form of `markdown`, within the job's limits.
 * - The text is the job's input file (`speech-jobs/<jobId>/input.txt`, deleted once it is final): the job
 *   item stays small.
 * - Cancel of a finished job: 409 `speech_job_not_cancelable`. No retry: a failed or canceled job is enqueued
 *   again (an identical finished one is then reused, billed 0).
 */
export const SPEECH_JOB_TYPE = defineJobType<
  SpeechJobStatus,
  SpeechJobRecord,
  SpeechJobReuseEntry,
  PublicSpeechJob
>({
  idPrefix: 'sj_',
  noun: 'speech',
  machine: 'speech-job',
  store: SPEECH_JOB_STORE,
  view: (job) => toPublicSpeechJob(job),
  limits: { quota: (l) => l.speechCharactersPerMonth, queueCap: (l) => l.speechJobQueueCap },
  codes: {
    quotaExceeded: 'speech_quota_exceeded',
    queueFull: 'speech_job_queue_full',
    notCancelable: 'speech_job_not_cancelable',
  },
  deleteInput: (job) => deleteIntermediateFile(env().bucketName, speechJobTextPath(job), job.jobId),
  activity: 'synthesis',
  retryHint: 'enqueue it again',
  errors: {
    table: {
      InputMissing: {
        code: 'internal',
        message: 'The text of the job is no longer stored; enqueue it again.',
      },
      OutputMissing: {
        code: 'synthesis_failed',
        message: 'The speech engine produced no audio or speech marks.',
      },
      SpeechSynthesisFailed: {
        code: 'synthesis_failed',
        message: 'The speech engine could not synthesize the text.',
      },
    },
    enginePrefix: 'Polly.',
    engineFailed: { code: 'synthesis_failed', message: 'The speech engine could not synthesize the text.' },
    gone: 'SpeechJobGone',
  },
});

/** `companies/<companyId>/speech-jobs/<jobId>/input.txt`: the stored text of a job. */
export const speechJobTextPath = (job: Pick<SpeechJobRecord, 'companyId' | 'jobId'>) =>
  `${companyObjectPrefix(job.companyId, 'speechJobs')}${job.jobId}/input.txt`;

/** An earlier result is usable while its files (the audio, the timing file if it has one) are still stored. */
export const speechJobResultExists = async (entry: SpeechJobReuseEntry) => {
  const files = [entry.result.audio, ...(entry.result.timings ? [entry.result.timings] : [])];
  const heads = await Promise.all(files.map((f) => headObject(f.bucket, f.fullPath)));
  return heads.every((head) => head !== undefined);
};
