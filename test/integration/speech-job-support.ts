import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import type { PublicSpeechJob } from '../../functions/shared/domain/jobs/public-views';
import { call } from './support';

export { markdownDocument } from '../fixtures/long-markdown';

/** Helpers of the speech job tests: enqueue, wait, download, a long markdown document, seeded jobs. */
export type SpeechJob = PublicSpeechJob;

export const headersOf = (apiKey: string, extra: Record<string, string> = {}) => ({
  'x-api-key': apiKey,
  ...extra,
});

export const enqueueSpeechJob = (
  apiKey: string,
  body: Record<string, unknown>,
  extra: Record<string, string> = {},
) => call('POST', '/v1/speech/jobs', { headers: headersOf(apiKey, extra), body });

export const getSpeechJob = async (apiKey: string, id: string) => {
  const res = await call('GET', `/v1/speech/jobs/${id}`, { headers: headersOf(apiKey) });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.job as SpeechJob;
};

export const waitForSpeechJob = async (
  apiKey: string,
  id: string,
  until: (job: SpeechJob) => boolean = (j) => ['done', 'failed', 'canceled'].includes(j.status),
  timeoutMs = 120_000,
): Promise<SpeechJob> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getSpeechJob(apiKey, id);
    if (until(job)) return job;
    if (Date.now() > deadline) throw new Error(`speech job ${id} stuck: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/** A stored file's bytes, through a signed download URL (`GET /v1/storage/url`). */
export const downloadBytes = async (apiKey: string, fullPath: string): Promise<Buffer> => {
  const url = await call('GET', `/v1/storage/url?fullPath=${encodeURIComponent(fullPath)}`, {
    headers: headersOf(apiKey),
  });
  expect(url.status).toBe(200);
  const file = await fetch(String(url.json.url));
  expect(file.status).toBe(200);
  return Buffer.from(await file.arrayBuffer());
};

/** The keys of the company's objects under `speech-jobs/` (texts, results, intermediate files). */
export const speechJobObjects = async (companyId: string): Promise<string[]> => {
  const { s3 } = await import('../../functions/shared/aws/s3');
  const { env } = await import('../../functions/shared/env');
  const Prefix = `companies/${companyId}/speech-jobs/`;
  const listed = await s3().send(new ListObjectsV2Command({ Bucket: env().bucketName, Prefix }));
  return (listed.Contents ?? []).map((object) => object.Key ?? '');
};

/** The stored text of a job (its input file), as it is now, or undefined when there is none. */
export const storedTextOf = async (companyId: string, jobId: string) => {
  const { readObjectText } = await import('../../functions/shared/aws/s3-objects');
  const { speechJobTextPath } = await import('../../functions/shared/domain/speech-jobs');
  const { env } = await import('../../functions/shared/env');
  return readObjectText(env().bucketName, speechJobTextPath({ companyId, jobId }));
};

/**
 * A `pending` job written straight through the engine's store (no execution runs it), with its text stored
 * as enqueue stores it when `text` is given.
 */
export const seedPendingSpeechJob = async (companyId: string, text?: string) => {
  const { SPEECH_JOB_TYPE, speechJobTextPath } = await import('../../functions/shared/domain/speech-jobs');
  const { ulid } = await import('../../functions/shared/ids');
  const now = new Date().toISOString();
  const job = {
    jobId: `sj_${ulid(Date.parse(now))}`,
    companyId,
    status: 'pending' as const,
    voiceProfileId: 'en-US-joanna',
    format: 'mp3' as const,
    characters: 10,
    textSha256: '0'.repeat(64),
    progress: { phase: 'pending' as const },
    attempt: 1,
    reused: false,
    billedSeconds: 0,
    createdAt: now,
    updatedAt: now,
    attemptStartedAt: now,
  };
  await SPEECH_JOB_TYPE.lifecycle.createJob(job, 100);
  if (text !== undefined) {
    const { putObject } = await import('../../functions/shared/aws/s3');
    const { env } = await import('../../functions/shared/env');
    await putObject(env().bucketName, speechJobTextPath(job), text, 'text/plain; charset=utf-8');
  }
  return job;
};
