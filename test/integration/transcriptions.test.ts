import { describe, expect, it } from 'vitest';
import { hostileStorageReferences } from '../fixtures/hostile-storage-paths';
import { call, createTenant, expectHostileRefusal, expectProblem, waitForSettled } from './support';
import {
  download,
  enqueue,
  getJob,
  type Job,
  overrideLimits,
  parseSubtitles,
  queueOf,
  RECORDINGS,
  seedJob,
  storeSource,
  transcriptionSecondsOf,
  waitForJob,
} from './transcription-support';

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z']+/)
    .filter(Boolean);

describe('POST /v1/transcriptions end to end (local engine: pocketsphinx)', () => {
  it.each([
    ['dashwood', 'wav'],
    ['amiable', 'ogg'],
    ['sequence', 'flac'],
  ] as const)(
    'transcribes the %s recording (%s): text, timed words, JSON/SRT/VTT files, billed once',
    async (kind, format) => {
      const tenant = await createTenant({ plan: 'starter' });
      const source = await storeSource(tenant.companyId, kind, { format });
      const res = await enqueue(tenant.apiKey, source);
      expect(res.status).toBe(202);
      const created = res.json.job as Job;
      expect(created).toMatchObject({ status: 'pending', language: 'en-US', reused: false, result: null });
      const done = await waitForJob(tenant.apiKey, created.id);
      expect(done).toMatchObject({ status: 'done', reused: false, error: null });
      const duration = done.durationSeconds ?? 0;
      expect(duration).toBeGreaterThan(4);
      expect(done.billedSeconds).toBe(Math.ceil(duration));
      const result = done.result;
      if (!result) throw new Error('no result');
      for (const keyword of RECORDINGS[kind].keywords) expect(words(result.text)).toContain(keyword);
      // Words in order, with increasing times inside the audio's duration.
      const list = result.words ?? [];
      expect(list.length).toBeGreaterThan(8);
      expect(result.wordCount).toBe(list.length);
      expect(result.wordsInFile).toBe(false);
      let previous = 0;
      for (const w of list) {
        expect(w.start).toBeGreaterThanOrEqual(previous);
        expect(w.end).toBeGreaterThanOrEqual(w.start);
        expect(w.end).toBeLessThanOrEqual(duration + 0.05);
        expect(w.confidence).toBeGreaterThanOrEqual(0);
        expect(w.confidence).toBeLessThanOrEqual(1);
        previous = w.start;
      }
      expect(list.map((w) => w.text).join(' ')).toBe(result.text);
      // The files are the company's stored objects and download through GET /v1/storage/url.
      const folder = `companies/${tenant.companyId}/transcriptions/${created.id}/a1/`;
      expect(result.files.json.fullPath).toBe(`${folder}transcript.json`);
      const json = await download(tenant.apiKey, result.files.json);
      expect(json.contentType).toBe('application/json');
      expect(JSON.parse(json.text)).toEqual({ text: result.text, language: 'en-US', words: list });
      for (const format of ['srt', 'vtt'] as const) {
        const file = await download(tenant.apiKey, result.files[format]);
        const cues = parseSubtitles(file.text, format);
        expect(cues.length).toBeGreaterThan(0);
        expect(cues.map((c) => c[2]).join(' ')).toBe(result.text);
        for (const [start, end] of cues) {
          expect(end).toBeGreaterThanOrEqual(start);
          expect(end).toBeLessThanOrEqual(duration + 0.05);
        }
      }
      await waitForSettled(tenant.apiKey, 'transcription.done', done.id);
      expect(await transcriptionSecondsOf(tenant.apiKey)).toBe(done.billedSeconds);
      expect(await queueOf(tenant.companyId)).toBe(0);
    },
  );

  it('reuses the result of the same content and language at another path, billing nothing', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const first = await storeSource(tenant.companyId, 'dashwood', { name: 'a.wav' });
    const a = await waitForJob(tenant.apiKey, ((await enqueue(tenant.apiKey, first)).json.job as Job).id);
    expect(a.status).toBe('done');
    const second = await storeSource(tenant.companyId, 'dashwood', { name: 'b.wav' });
    const b = await waitForJob(tenant.apiKey, ((await enqueue(tenant.apiKey, second)).json.job as Job).id);
    expect(b).toMatchObject({ status: 'done', reused: true, billedSeconds: 0, result: a.result });
    expect(b.durationSeconds).toBe(a.durationSeconds);
    await waitForSettled(tenant.apiKey, 'transcription.done', a.id);
    expect(await transcriptionSecondsOf(tenant.apiKey)).toBe(a.billedSeconds);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('honours Idempotency-Key: the same request answers the same job once', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'amiable');
    const headers = { 'idempotency-key': `tr-${tenant.companyId}` };
    const first = await enqueue(tenant.apiKey, source, headers);
    const again = await enqueue(tenant.apiKey, source, headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect((again.json.job as Job).id).toBe((first.json.job as Job).id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await waitForJob(tenant.apiKey, (first.json.job as Job).id);
  });
});

describe('Transcription of sources that are not speech', () => {
  it.each([
    ['silent-video', 'source_no_audio'],
    ['corrupt', 'source_unreadable'],
    ['text', 'source_unreadable'],
  ] as const)('fails a %s source with %s, billing nothing and releasing the slot', async (kind, code) => {
    const tenant = await createTenant();
    const source = await storeSource(tenant.companyId, kind);
    const res = await enqueue(tenant.apiKey, source);
    expect(res.status).toBe(202);
    const failed = await waitForJob(tenant.apiKey, (res.json.job as Job).id);
    expect(failed).toMatchObject({ status: 'failed', billedSeconds: 0, result: null });
    expect(failed.error?.code).toBe(code);
    expect(await transcriptionSecondsOf(tenant.apiKey)).toBe(0);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('fails a source longer than the plan allows with source_too_long', async () => {
    const tenant = await createTenant();
    await overrideLimits(tenant.companyId, { transcriptionMaxDurationSeconds: 3 });
    const source = await storeSource(tenant.companyId, 'dashwood');
    const failed = await waitForJob(
      tenant.apiKey,
      ((await enqueue(tenant.apiKey, source)).json.job as Job).id,
    );
    expect(failed.error?.code).toBe('source_too_long');
  });

  it('fails a source larger than the plan allows with source_too_large', async () => {
    const tenant = await createTenant();
    await overrideLimits(tenant.companyId, { transcriptionMaxSourceBytes: 1000 });
    const source = await storeSource(tenant.companyId, 'dashwood');
    const failed = await waitForJob(
      tenant.apiKey,
      ((await enqueue(tenant.apiKey, source)).json.job as Job).id,
    );
    expect(failed.error?.code).toBe('source_too_large');
  });
});

describe('Transcription quota and queue cap', () => {
  it('refuses with 429 transcription_quota_exceeded and Retry-After once the month is used up', async () => {
    const tenant = await createTenant();
    await overrideLimits(tenant.companyId, { transcriptionSecondsPerMonth: 5 });
    const { addToMeter } = await import('../../functions/shared/data/usage-meters');
    await addToMeter(tenant.companyId, 'transcription_seconds', 5, new Date());
    const source = await storeSource(tenant.companyId, 'amiable');
    const res = await enqueue(tenant.apiKey, source);
    expectProblem(res, 429, 'transcription_quota_exceeded');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('refuses with 429 transcription_queue_full and Retry-After at the cap', async () => {
    const tenant = await createTenant(); // free plan: 2 unfinished transcriptions
    await seedJob(tenant.companyId, 'pending');
    await seedJob(tenant.companyId, 'transcribing');
    await seedJob(tenant.companyId, 'failed');
    const source = await storeSource(tenant.companyId, 'amiable');
    const res = await enqueue(tenant.apiKey, source);
    expectProblem(res, 429, 'transcription_queue_full');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await queueOf(tenant.companyId)).toBe(2);
  });

  it('keeps the queue counter exact under concurrent enqueues', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    await overrideLimits(tenant.companyId, { transcriptionQueueCap: 2 });
    const source = await storeSource(tenant.companyId, 'amiable');
    const results = await Promise.all(Array.from({ length: 8 }, () => enqueue(tenant.apiKey, source)));
    const accepted = results.filter((r) => r.status === 202);
    expect(accepted).toHaveLength(2);
    for (const r of results.filter((r) => r.status !== 202))
      expect(r.json.code).toBe('transcription_queue_full');
    for (const r of accepted)
      expect((await waitForJob(tenant.apiKey, (r.json.job as Job).id)).status).toBe('done');
    expect(await queueOf(tenant.companyId)).toBe(0);
  });
});

describe('Transcription isolation and validation', () => {
  it("answers 404 to another tenant's job ids and source paths", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const job = await seedJob(a.companyId, 'failed');
    expectProblem(
      await call('GET', `/v1/transcriptions/${job.jobId}`, { headers: { 'x-api-key': b.apiKey } }),
      404,
      'not_found',
    );
    const source = await storeSource(a.companyId, 'amiable');
    expectProblem(await enqueue(b.apiKey, source), 404, 'not_found');
    expect(await queueOf(b.companyId)).toBe(0);
    expect((await getJob(a.apiKey, job.jobId)).status).toBe('failed');
  });

  it('answers 404 for a missing source and an unknown job id', async () => {
    const t = await createTenant();
    expectProblem(
      await enqueue(t.apiKey, { fullPath: `companies/${t.companyId}/nothing.wav` }),
      404,
      'not_found',
    );
    expectProblem(
      await call('GET', '/v1/transcriptions/tr_unknown', { headers: { 'x-api-key': t.apiKey } }),
      404,
      'not_found',
    );
  });

  it.each(['de-DE', 'auto'])(
    'refuses language %s locally with 400 naming the supported codes',
    async (language) => {
      const t = await createTenant();
      const source = await storeSource(t.companyId, 'amiable');
      const res = await enqueue(t.apiKey, { ...source, language });
      expectProblem(res, 400, 'validation_failed');
      expect(res.json.supportedLanguages).toEqual(['en-US']);
      expect(JSON.stringify(res.json.errors)).toContain('en-US');
      expect(await queueOf(t.companyId)).toBe(0);
    },
  );

  it.each([
    [{ fullPath: 'x.wav', language: 'klingon' }, '/body/language'],
    [{}, '/body/fullPath'],
    [{ fullPath: 'x.wav', preset: 'wav' }, '/body'],
  ])('refuses %j with 400 validation_failed', async (body, pointer) => {
    const t = await createTenant();
    const res = await enqueue(t.apiKey, body);
    expectProblem(res, 400, 'validation_failed');
    expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer).join(' ')).toContain(pointer);
  });

  it('refuses every reference of the shared hostile corpus (400 or 404) and enqueues nothing', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const other = await createTenant();
    const bucket = process.env.BUCKET_NAME ?? '';
    await storeSource(other.companyId, 'amiable', { name: 'x/file.png' });
    for (const hostile of hostileStorageReferences(tenant.companyId, other.companyId, bucket)) {
      expectHostileRefusal(await enqueue(tenant.apiKey, { ...hostile.reference }), hostile, 'body');
    }
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('refuses a credential without transcriptions scopes with 403 insufficient_scope', async () => {
    const t = await createTenant({ scopes: ['company:read'] });
    expectProblem(
      await call('GET', '/v1/transcriptions/tr_x', { headers: { 'x-api-key': t.apiKey } }),
      403,
      'insufficient_scope',
    );
  });
});

describe('Transcription probe step: one write (decision 0055)', () => {
  it('leaves the job pending while it probes, then moves it to transcribing with its duration, 10 % and the lease', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'dashwood');
    const seeded = await seedJob(tenant.companyId, 'pending', 100, source);
    const { createTranscriptionWorker } = await import('../../functions/workers/transcription/worker');
    const { probeWithFfprobe } = await import('../../functions/local/media-engine');
    const whileProbed: string[] = [];
    const worker = createTranscriptionWorker({
      probe: async (file) => {
        whileProbed.push((await getJob(tenant.apiKey, seeded.jobId)).status);
        return probeWithFfprobe(file);
      },
    });
    const executionArn = `arn:aws:states:eu-west-1:000000000000:execution:transcription:${seeded.jobId}-a1`;
    const started = Date.now();
    const out = (await worker({
      action: 'probe',
      companyId: tenant.companyId,
      jobId: seeded.jobId,
      attempt: 1,
      executionArn,
    })) as { reused: boolean; durationSeconds: number };
    expect(out.reused).toBe(false);
    // No claim before the probe: the move after it is the step's one write.
    expect(whileProbed).toEqual(['pending']);
    expect(await getJob(tenant.apiKey, seeded.jobId)).toMatchObject({
      status: 'transcribing',
      progress: { phase: 'transcribing', percent: 10 },
      durationSeconds: out.durationSeconds,
    });
    const { transcriptionJobs } = await import('../../functions/shared/domain/transcriptions');
    const stored = await transcriptionJobs.lifecycle.getJob(tenant.companyId, seeded.jobId);
    expect(stored?.executionArn).toBe(executionArn);
    expect(Date.parse(stored?.leaseUntil ?? '')).toBeGreaterThanOrEqual(started + (4 * 3600 + 900) * 1000);
    expect(await queueOf(tenant.companyId)).toBe(1);
  });
});

describe('Transcriptions interrupted by a restart', () => {
  it('marks unfinished jobs failed/interrupted at start-up, clearing the lease and releasing the slot', async () => {
    const tenant = await createTenant();
    const pending = await seedJob(tenant.companyId, 'pending');
    const running = await seedJob(tenant.companyId, 'transcribing');
    expect(running.leaseUntil).toBeDefined();
    expect(await queueOf(tenant.companyId)).toBe(2);
    // Only this kind: the shared stack's other work is live.
    const { recoverUnfinishedWork, UNFINISHED_WORK } = await import('../../functions/local/recovery');
    const kinds = UNFINISHED_WORK.filter((k) => k.name === 'transcriptions');
    const counts = await recoverUnfinishedWork(new Date(), kinds);
    expect(counts.transcriptions?.failed).toBeGreaterThanOrEqual(2);
    for (const id of [pending.jobId, running.jobId]) {
      const job = await getJob(tenant.apiKey, id);
      expect(job).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
    }
    const { transcriptionJobs } = await import('../../functions/shared/domain/transcriptions');
    const stored = await transcriptionJobs.lifecycle.getJob(tenant.companyId, running.jobId);
    expect(stored?.leaseUntil).toBeUndefined();
    expect(await queueOf(tenant.companyId)).toBe(0);
  });
});
