import { expect } from 'vitest';
import type { PublicSpeechJob } from '../../functions/shared/domain/speech-jobs';
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

/** A `pending` job written straight through the engine's store (no execution runs it). */
export const seedPendingSpeechJob = async (companyId: string) => {
  const { SPEECH_JOB_TYPE } = await import('../../functions/shared/domain/speech-jobs');
  const { ulid } = await import('../../functions/shared/ids');
  const now = new Date().toISOString();
  const job = {
    jobId: `sj_${ulid()}`,
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
  return job;
};
