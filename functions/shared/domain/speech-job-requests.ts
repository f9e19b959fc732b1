import { createHash } from 'node:crypto';
import { putObject } from '../aws/s3';
import { type SpeechJobRecord, speechJobReuseKey } from '../data/speech-jobs';
import { env } from '../env';
import { ValidationError } from '../errors';
import { SPEECH_JOB_MAX_CHARACTERS, SPEECH_JOB_MAX_TEXT_BYTES } from '../types/speech-jobs';
import type { SpeechFormat } from '../types/speech-voices';
import { enqueueJob } from './jobs/enqueue';
import { SPEECH_JOB_TYPE, speechJobResultExists, speechJobTextPath } from './speech-jobs';
import { characterCount, speechTextProblem, voiceOf } from './speech-request';
import { rewriteMarkdown } from './spoken-text';

/**
 * A long-form speech request (`POST /v1/speech/jobs`, `actions/media/speech`): the spoken text is `text` as
 * sent, or the spoken form of `markdown` (the rewrite of POST /v1/spoken-text without its token cap); either
 * is at most 100,000 characters (code points) after the rewrite, and at most SPEECH_JOB_MAX_TEXT_BYTES in
 * UTF-8 (the text travels in the machine's state to Polly). The engine stores the text as the job's input
 * file, checks the quota with the characters as its demand and reuses an identical finished job.
 * Kept apart from the job type (`speech-jobs.ts`) so the worker and the MCP group do not load the markdown
 * rewrite.
 */
export interface SpeechJobInput {
  text?: string | undefined;
  markdown?: string | undefined;
  voiceProfileId?: string | undefined;
  format?: SpeechFormat | undefined;
  /** Whether the job writes the timing file of its sentences; `true` when absent. */
  timings?: boolean | undefined;
}

/** The text to speak (`text`, or `markdown` spoken) within the job's limits; refusals point under `at`. */
export const spokenTextOf = async (input: SpeechJobInput, at = '/body'): Promise<string> => {
  const pointer = input.markdown === undefined ? `${at}/text` : `${at}/markdown`;
  const text =
    input.markdown === undefined ? (input.text ?? '') : await rewriteMarkdown(input.markdown, pointer);
  const characters = characterCount(text);
  const problem =
    speechTextProblem(text) ??
    (characters > SPEECH_JOB_MAX_CHARACTERS
      ? `The spoken text has ${characters} characters; a speech job takes at most ${SPEECH_JOB_MAX_CHARACTERS}.`
      : Buffer.byteLength(text) > SPEECH_JOB_MAX_TEXT_BYTES
        ? `The spoken text is over ${SPEECH_JOB_MAX_TEXT_BYTES} bytes in UTF-8.`
        : undefined);
  if (problem) throw new ValidationError([{ pointer, message: problem }]);
  return text;
};

export const enqueueSpeechJob = async (
  companyId: string,
  input: SpeechJobInput,
  now: Date,
  at = '/body',
): Promise<SpeechJobRecord> => {
  const voice = voiceOf(input.voiceProfileId);
  const text = await spokenTextOf(input, at);
  const request = {
    voiceProfileId: voice.id,
    format: input.format ?? 'mp3',
    characters: characterCount(text),
    textSha256: createHash('sha256').update(text).digest('hex'),
    timings: input.timings ?? true,
  } as const;
  return enqueueJob(
    SPEECH_JOB_TYPE,
    companyId,
    {
      fields: () => request,
      storeInput: (job) =>
        putObject(env().bucketName, speechJobTextPath(job), text, 'text/plain; charset=utf-8'),
      demand: request.characters,
      reuse: {
        key: speechJobReuseKey(request),
        usable: speechJobResultExists,
        fields: (entry) => ({ result: entry.result, durationSeconds: entry.durationSeconds }),
      },
    },
    now,
  );
};
