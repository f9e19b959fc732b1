import { beforeAll, describe, expect, it } from 'vitest';
import { mp3Seconds } from '../../functions/shared/audio-frames';
import { characterCount } from '../../functions/shared/domain/speech-request';
import { rewriteMarkdown } from '../../functions/shared/domain/spoken-text';
import type { SentenceTiming } from '../../functions/shared/types/speech-jobs';
import {
  downloadBytes,
  enqueueSpeechJob,
  getSpeechJob,
  headersOf,
  markdownDocument,
  type SpeechJob,
  seedPendingSpeechJob,
  speechJobObjects,
  storedTextOf,
  waitForSpeechJob,
} from './speech-job-support';
import { call, createTenant, expectProblem, waitForSettled } from './support';
import { eventually } from './webhook-receiver';

const speechCharactersOf = async (apiKey: string) => {
  const res = await call('GET', '/v1/usage', { headers: headersOf(apiKey) });
  return (res.json.usage as { meters: { speech_characters: number } }).meters.speech_characters;
};

/**
 * Long-form speech jobs through the local stack (espeak-ng per sentence on every core, ffmpeg joining). One
 * 12,000-character markdown document is synthesized once and shared by the assertions about it.
 */
describe('speech jobs end to end (local engine: espeak-ng + ffmpeg)', () => {
  let tenant: Awaited<ReturnType<typeof createTenant>>;
  let markdown: string;
  let done: SpeechJob;

  beforeAll(async () => {
    tenant = await createTenant({ limits: { speechCharactersPerMonth: 100_000 } });
    markdown = markdownDocument(12_000, Math.random().toString(36).slice(2, 8));
    const res = await enqueueSpeechJob(tenant.apiKey, { markdown, format: 'mp3' });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const created = res.json.job as SpeechJob;
    expect(created).toMatchObject({ status: 'pending', reused: false, result: null, billedCharacters: 0 });
    done = await waitForSpeechJob(tenant.apiKey, created.id);
  }, 180_000);

  it('turns a 12,000-character markdown document into one mp3 longer than 5 minutes', async () => {
    expect(markdown.length).toBe(12_000);
    expect(done).toMatchObject({ status: 'done', reused: false, error: null, format: 'mp3' });
    const audio = done.result?.audio;
    if (!audio) throw new Error('no audio');
    const bytes = await downloadBytes(tenant.apiKey, audio.fullPath);
    expect(bytes.length).toBe(audio.size);
    const seconds = mp3Seconds(bytes);
    expect(seconds).toBeGreaterThan(300);
    expect(done.durationSeconds).toBeCloseTo(seconds, 1);
  });

  it('writes a timing file of ordered sentences that covers the audio', async () => {
    const timings = done.result?.timings;
    if (!timings || done.durationSeconds === null) throw new Error('no timings');
    const sentences = JSON.parse(
      (await downloadBytes(tenant.apiKey, timings.fullPath)).toString(),
    ) as SentenceTiming[];
    expect(sentences.length).toBe(timings.sentences);
    expect(sentences.length).toBeGreaterThan(100);
    expect(sentences[0]?.start).toBe(0);
    sentences.forEach((s, i) => {
      expect(s.end).toBeGreaterThan(s.start);
      if (i > 0) expect(s.start).toBe(sentences[i - 1]?.end);
    });
    expect(sentences.at(-1)?.end).toBe(Math.round(done.durationSeconds * 1000));
    // The sentences are the spoken text, in order.
    expect(sentences.map((s) => s.text).join(' ')).toBe(await rewriteMarkdown(markdown));
  });

  it('bills the characters spoken, once', async () => {
    const spoken = characterCount(await rewriteMarkdown(markdown));
    expect(done.characters).toBe(spoken);
    expect(done.billedCharacters).toBe(spoken);
    await waitForSettled(tenant.apiKey, 'speech_job.done', done.id);
    expect(await speechCharactersOf(tenant.apiKey)).toBe(spoken);
  });

  it('reuses the result of an identical request and bills 0', async () => {
    const res = await enqueueSpeechJob(tenant.apiKey, { markdown, format: 'mp3' });
    expect(res.status).toBe(202);
    const again = res.json.job as SpeechJob;
    expect(again.id).not.toBe(done.id);
    expect(again).toMatchObject({ status: 'done', reused: true, billedCharacters: 0, result: done.result });
    await waitForSettled(tenant.apiKey, 'speech_job.done', done.id);
    await waitForSettled(tenant.apiKey, 'speech_job.done', again.id);
    expect(await speechCharactersOf(tenant.apiKey)).toBe(done.characters);
    // The reused job keeps no text of its own.
    expect(await storedTextOf(tenant.companyId, again.id)).toBeUndefined();
  });

  it('deletes the text and the intermediate files of a finished job, keeping its results', async () => {
    // The clean-up follows the move to `done`, which a client may see first.
    const left = await eventually(
      () => speechJobObjects(tenant.companyId),
      (keys) =>
        !keys.some((key) => key.includes(`/${done.id}/`) && !key.endsWith('.mp3') && !key.endsWith('.json')),
    );
    const results = [done.result?.audio.fullPath, done.result?.timings?.fullPath];
    expect(left.filter((key) => key.includes(`/${done.id}/`)).sort()).toEqual(results.sort());
  });

  it('answers 409 speech_job_not_cancelable for a finished job, 200 for an unfinished one', async () => {
    const finished = await call('POST', `/v1/speech/jobs/${done.id}/cancel`, {
      headers: headersOf(tenant.apiKey),
    });
    expectProblem(finished, 409, 'speech_job_not_cancelable');
    expect(finished.json.jobStatus).toBe('done');
    const pending = await seedPendingSpeechJob(tenant.companyId);
    const canceled = await call('POST', `/v1/speech/jobs/${pending.jobId}/cancel`, {
      headers: headersOf(tenant.apiKey),
    });
    expect(canceled.status).toBe(200);
    expect(canceled.json.job).toMatchObject({ id: pending.jobId, status: 'canceled', billedCharacters: 0 });
  });

  it('lists the company’s jobs newest first, and reads one with an ETag', async () => {
    const list = await call('GET', '/v1/speech/jobs?limit=2', { headers: headersOf(tenant.apiKey) });
    expect(list.status).toBe(200);
    const jobs = list.json.jobs as SpeechJob[];
    expect(jobs).toHaveLength(2);
    expect(jobs.map((j) => j.id)).toEqual([...jobs.map((j) => j.id)].sort().reverse());
    expect(typeof list.json.nextCursor).toBe('string');
    const read = await call('GET', `/v1/speech/jobs/${done.id}`, { headers: headersOf(tenant.apiKey) });
    const etag = read.headers.get('etag');
    expect(etag).toBeTruthy();
    const unchanged = await call('GET', `/v1/speech/jobs/${done.id}`, {
      headers: headersOf(tenant.apiKey, { 'if-none-match': String(etag) }),
    });
    expect(unchanged.status).toBe(304);
  });

  it('answers 404 for another company’s job id', async () => {
    const other = await createTenant();
    expectProblem(
      await call('GET', `/v1/speech/jobs/${done.id}`, { headers: headersOf(other.apiKey) }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', `/v1/speech/jobs/${done.id}/cancel`, { headers: headersOf(other.apiKey) }),
      404,
      'not_found',
    );
    expect((await getSpeechJob(tenant.apiKey, done.id)).status).toBe('done');
  });
});

/**
 * `timings: false`: one synthesis task, no timing file. A job without timings and one with are different
 * requests: neither reuses the other, each reuses its own kind.
 */
describe('speech jobs without timings', () => {
  let tenant: Awaited<ReturnType<typeof createTenant>>;
  let markdown: string;
  let audioOnly: SpeechJob;

  const jobFilesOf = async (id: string) =>
    (await speechJobObjects(tenant.companyId)).filter((key) => key.includes(`/${id}/`)).sort();

  beforeAll(async () => {
    tenant = await createTenant({ limits: { speechCharactersPerMonth: 100_000 } });
    markdown = markdownDocument(3000, Math.random().toString(36).slice(2, 8));
    const res = await enqueueSpeechJob(tenant.apiKey, { markdown, format: 'mp3', timings: false });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(res.json.job).toMatchObject({ status: 'pending', timings: false, result: null });
    audioOnly = await waitForSpeechJob(tenant.apiKey, (res.json.job as SpeechJob).id);
  }, 120_000);

  it('ends done with the audio, billed once, and no timing file anywhere', async () => {
    const spoken = characterCount(await rewriteMarkdown(markdown));
    expect(audioOnly).toMatchObject({
      status: 'done',
      reused: false,
      timings: false,
      billedCharacters: spoken,
    });
    const audio = audioOnly.result?.audio;
    if (!audio) throw new Error('no audio');
    expect(audioOnly.result?.timings).toBeNull();
    const bytes = await downloadBytes(tenant.apiKey, audio.fullPath);
    expect(bytes.length).toBe(audio.size);
    expect(audioOnly.durationSeconds).toBeCloseTo(mp3Seconds(bytes), 1);
    // Storage holds the audio alone: no timing file, no speech marks, no text (the clean-up follows `done`).
    const left = await eventually(
      () => jobFilesOf(audioOnly.id),
      (keys) => keys.length === 1,
    );
    expect(left).toEqual([audio.fullPath]);
  });

  it('is not reused by a request with timings, nor reuses one: each reuses its own kind', async () => {
    const withTimings = await enqueueSpeechJob(tenant.apiKey, { markdown, format: 'mp3' });
    expect(withTimings.status).toBe(202);
    expect(withTimings.json.job).toMatchObject({ status: 'pending', reused: false, timings: true });
    const full = await waitForSpeechJob(tenant.apiKey, (withTimings.json.job as SpeechJob).id);
    expect(full).toMatchObject({ status: 'done', reused: false, timings: true });
    expect(full.result?.timings?.sentences).toBeGreaterThan(10);
    expect(full.result?.audio.fullPath).not.toBe(audioOnly.result?.audio.fullPath);

    const again = await enqueueSpeechJob(tenant.apiKey, { markdown, format: 'mp3', timings: false });
    expect(again.json.job).toMatchObject({
      status: 'done',
      reused: true,
      timings: false,
      billedCharacters: 0,
      result: audioOnly.result,
    });
    const fullAgain = await enqueueSpeechJob(tenant.apiKey, { markdown, format: 'mp3', timings: true });
    expect(fullAgain.json.job).toMatchObject({
      status: 'done',
      reused: true,
      timings: true,
      billedCharacters: 0,
      result: full.result,
    });
    for (const id of [audioOnly.id, full.id]) await waitForSettled(tenant.apiKey, 'speech_job.done', id);
    expect(await speechCharactersOf(tenant.apiKey)).toBe(2 * audioOnly.characters);
  }, 120_000);

  it('answers 404 to another company', async () => {
    const other = await createTenant();
    expectProblem(
      await call('GET', `/v1/speech/jobs/${audioOnly.id}`, { headers: headersOf(other.apiKey) }),
      404,
      'not_found',
    );
  });

  it('refuses a timings that is not a boolean with 400 at /body/timings', async () => {
    const res = await enqueueSpeechJob(tenant.apiKey, { text: 'Hi.', timings: 'no' });
    expectProblem(res, 400, 'validation_failed');
    expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual(['/body/timings']);
  });
});

describe('the stored text of a speech job', () => {
  it('is deleted when the job is canceled, or fails', async () => {
    const tenant = await createTenant();
    const canceled = await seedPendingSpeechJob(tenant.companyId, 'To be canceled.');
    const failed = await seedPendingSpeechJob(tenant.companyId, 'To fail.');
    expect(await storedTextOf(tenant.companyId, canceled.jobId)).toBe('To be canceled.');
    const cancel = await call('POST', `/v1/speech/jobs/${canceled.jobId}/cancel`, {
      headers: headersOf(tenant.apiKey),
    });
    expect(cancel.json.job).toMatchObject({ status: 'canceled' });
    expect(await storedTextOf(tenant.companyId, canceled.jobId)).toBeUndefined();
    const { createSpeechJobWorker } = await import('../../functions/workers/speech-job/worker');
    const ref = { companyId: tenant.companyId, jobId: failed.jobId, attempt: 1 };
    await createSpeechJobWorker()({ action: 'fail', ...ref, error: { Error: 'SpeechSynthesisFailed' } });
    expect(await getSpeechJob(tenant.apiKey, failed.jobId)).toMatchObject({ status: 'failed' });
    expect(await storedTextOf(tenant.companyId, failed.jobId)).toBeUndefined();
  });

  it('is not left behind by a refused request', async () => {
    const tenant = await createTenant({ limits: { speechJobQueueCap: 0 } });
    expectProblem(await enqueueSpeechJob(tenant.apiKey, { text: 'Refused.' }), 429, 'speech_job_queue_full');
    expect(await speechJobObjects(tenant.companyId)).toEqual([]);
  });
});

describe('POST /v1/speech/jobs refusals', () => {
  it('refuses 100,001 characters with 400 pointing at the text', async () => {
    const tenant = await createTenant();
    const res = await enqueueSpeechJob(tenant.apiKey, { text: 'a'.repeat(100_001) });
    expectProblem(res, 400, 'validation_failed');
    expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer)).toContain('/body/text');
  });

  it.each([
    ['only punctuation', '... ?! —', 'nothing to speak'],
    ['a lone surrogate', 'Hello \ud800 there.', 'lone UTF-16 surrogate'],
  ])('refuses text of %s with 400 at /body/text, starting nothing', async (_name, text, message) => {
    const tenant = await createTenant();
    const res = await enqueueSpeechJob(tenant.apiKey, { text });
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([{ pointer: '/body/text', message: expect.stringContaining(message) }]);
    const list = await call('GET', '/v1/speech/jobs', { headers: headersOf(tenant.apiKey) });
    expect(list.json.jobs).toEqual([]);
  });

  it('refuses both or neither of text and markdown, and an unknown voice', async () => {
    const tenant = await createTenant();
    for (const body of [{}, { text: 'Hi.', markdown: '# Hi' }, { text: 'Hi.', voiceProfileId: 'nobody' }]) {
      expectProblem(await enqueueSpeechJob(tenant.apiKey, body), 400, 'validation_failed');
    }
  });

  it('refuses a job whose characters would pass the month’s allowance with 429, before it starts', async () => {
    const tenant = await createTenant({ limits: { speechCharactersPerMonth: 50 } });
    const res = await enqueueSpeechJob(tenant.apiKey, { text: 'This sentence is long enough. '.repeat(3) });
    expectProblem(res, 429, 'speech_quota_exceeded');
    expect(res.headers.get('retry-after')).toBeTruthy();
    const list = await call('GET', '/v1/speech/jobs', { headers: headersOf(tenant.apiKey) });
    expect(list.json.jobs).toEqual([]);
  });

  it('refuses a job past the plan’s cap of unfinished jobs with 429 speech_job_queue_full', async () => {
    const tenant = await createTenant({ limits: { speechJobQueueCap: 1 } });
    await seedPendingSpeechJob(tenant.companyId);
    const res = await enqueueSpeechJob(tenant.apiKey, { text: 'Queued too soon.' });
    expectProblem(res, 429, 'speech_job_queue_full');
    expect(res.headers.get('retry-after')).toBe('30');
  });
});
