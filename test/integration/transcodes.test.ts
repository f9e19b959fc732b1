import { describe, expect, it, vi } from 'vitest';
import { hostileStorageReferences } from '../fixtures/hostile-storage-paths';
import { presetExpectation } from '../fixtures/transcode-expectations';
import { call, createTenant, expectHostileRefusal, expectProblem, waitForSettled } from './support';
import {
  engineOf,
  executionArnOf,
  ffmpegProcessesOf,
  getJob,
  type Job,
  overrideLimits,
  probeStored,
  queueOf,
  reuseItemsOf,
  seedJob,
  setLease,
  storeSource,
  transcodeSecondsOf,
  waitForJob,
} from './transcode-support';

const enqueue = (apiKey: string, body: Record<string, unknown>) =>
  call('POST', '/v1/transcodes', { headers: { 'x-api-key': apiKey }, body });
const cancel = (apiKey: string, id: string) =>
  call('POST', `/v1/transcodes/${id}/cancel`, { headers: { 'x-api-key': apiKey } });
const retry = (apiKey: string, id: string) =>
  call('POST', `/v1/transcodes/${id}/retry`, { headers: { 'x-api-key': apiKey } });

const presets = await import('../../functions/shared/domain/transcode-presets');

describe('POST /v1/transcodes end to end (local engine: ffmpeg)', () => {
  it.each(presets.TRANSCODE_PRESETS)(
    'converts an audio source to %s on its engine, stores the output and bills the same seconds once',
    async (preset) => {
      const tenant = await createTenant({ plan: 'starter' });
      const source = await storeSource(tenant.companyId, 'tone', { seconds: 3 });
      const res = await enqueue(tenant.apiKey, { ...source, preset });
      expect(res.status).toBe(202);
      const created = res.json.job as Job;
      expect(created).toMatchObject({ status: 'pending', preset, attempt: 1, reused: false, output: null });
      const done = await waitForJob(tenant.apiKey, created.id);
      expect(done).toMatchObject({
        status: 'done',
        reused: false,
        billedSeconds: 3,
        leaseUntil: null,
        error: null,
      });
      expect(done.output?.fullPath).toBe(
        `companies/${tenant.companyId}/transcodes/${created.id}/a1/output.${presets.presetExtension(preset)}`,
      );
      const probe = await probeStored(done.output as { bucket: string; fullPath: string });
      const expected = presetExpectation(preset, false);
      expect(probe?.format?.format_name).toContain(expected.formatName);
      const audio = probe?.streams?.find((s) => s.codec_type === 'audio');
      expect(audio?.codec_name).toBe(expected.audioCodec);
      expect(Number(audio?.sample_rate)).toBe(expected.sampleRate);
      expect(audio?.channels).toBe(expected.channels);
      await waitForSettled(tenant.apiKey, 'transcode.done', created.id);
      expect(await transcodeSecondsOf(tenant.apiKey)).toBe(3);
      expect(await queueOf(tenant.companyId)).toBe(0);
      // Audio-only presets run on the ffmpeg function's module, mp4 on MediaConvert's stand-in: same bill.
      expect(await engineOf(tenant.companyId, created.id)).toBe(preset === 'mp4' ? 'mediaconvert' : 'ffmpeg');
    },
  );

  it('converts a video source to mp4 with H.264 video and AAC audio', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'video', { seconds: 2 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'mp4' });
    expect(res.status).toBe(202);
    const done = await waitForJob(tenant.apiKey, (res.json.job as Job).id);
    expect(done.status).toBe('done');
    const probe = await probeStored(done.output as { bucket: string; fullPath: string });
    expect(probe?.streams?.map((s) => s.codec_name).sort()).toEqual(['aac', 'h264']);
    // The output is a stored object of the tenant: a signed download URL serves it.
    const url = await call(
      'GET',
      `/v1/storage/url?fullPath=${encodeURIComponent(done.output?.fullPath ?? '')}`,
      {
        headers: { 'x-api-key': tenant.apiKey },
      },
    );
    expect(url.status).toBe(200);
    const file = await fetch(String(url.json.url));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });

  it('treats an audio file with cover art as audio: mp4 preset gives audio/mp4 with one AAC stream', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'cover', { seconds: 2 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'mp4' });
    expect(res.status).toBe(202);
    const done = await waitForJob(tenant.apiKey, (res.json.job as Job).id);
    expect(done.status).toBe('done');
    const probe = await probeStored(done.output as { bucket: string; fullPath: string });
    expect(probe?.streams?.map((s) => s.codec_name)).toEqual(['aac']);
    const url = await call(
      'GET',
      `/v1/storage/url?fullPath=${encodeURIComponent(done.output?.fullPath ?? '')}`,
      { headers: { 'x-api-key': tenant.apiKey } },
    );
    expect((await fetch(String(url.json.url))).headers.get('content-type')).toBe('audio/mp4');
  });

  it('reuses the output of the same content and preset at another path, billing nothing', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const first = await storeSource(tenant.companyId, 'tone', { seconds: 3, name: 'a.wav' });
    const a = await waitForJob(
      tenant.apiKey,
      ((await enqueue(tenant.apiKey, { ...first, preset: 'wav' })).json.job as Job).id,
    );
    expect(a.status).toBe('done');
    // Same bytes (same ETag and size) under another name.
    const second = await storeSource(tenant.companyId, 'tone', { seconds: 3, name: 'b.wav' });
    const res = await enqueue(tenant.apiKey, { fullPath: second.fullPath, preset: 'wav' });
    expect(res.status).toBe(202);
    const b = await waitForJob(tenant.apiKey, (res.json.job as Job).id);
    expect(b).toMatchObject({ status: 'done', reused: true, billedSeconds: 0, output: a.output });
    await waitForSettled(tenant.apiKey, 'transcode.done', a.id);
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(3);
    // Another preset of the same content is a new conversion.
    const c = await waitForJob(
      tenant.apiKey,
      ((await enqueue(tenant.apiKey, { ...second, preset: 'flac_16k_mono' })).json.job as Job).id,
    );
    expect(c).toMatchObject({ status: 'done', reused: false, billedSeconds: 3 });
  });

  it('keys the reuse entry by the content the job converted, not by what was recorded at enqueue', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 2 });
    // The seeded job's enqueue-time snapshot of the source (size 1, a made-up ETag) no longer matches the
    // stored bytes, as when the file is replaced between enqueue and probe.
    const job = await seedJob(tenant.companyId, 'canceled', { source });
    expect((await retry(tenant.apiKey, job.jobId)).status).toBe(202);
    const first = await waitForJob(tenant.apiKey, job.jobId);
    expect(first).toMatchObject({ status: 'done', reused: false, billedSeconds: 2 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'wav' });
    expect(res.status).toBe(202);
    const second = await waitForJob(tenant.apiKey, (res.json.job as Job).id);
    expect(second).toMatchObject({ status: 'done', reused: true, billedSeconds: 0, output: first.output });
    await waitForSettled(tenant.apiKey, 'transcode.done', first.id);
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(2);
  });

  it('fails a corrupt source with source_unreadable, and a retry fails again with the same code', async () => {
    const tenant = await createTenant();
    const source = await storeSource(tenant.companyId, 'corrupt');
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'ogg_opus' });
    expect(res.status).toBe(202);
    const failed = await waitForJob(tenant.apiKey, (res.json.job as Job).id);
    expect(failed).toMatchObject({ status: 'failed', leaseUntil: null, billedSeconds: 0, output: null });
    expect(failed.error?.code).toBe('source_unreadable');
    const again = await retry(tenant.apiKey, failed.id);
    expect(again.status).toBe(202);
    expect(again.json.job).toMatchObject({ status: 'pending', attempt: 2, error: null });
    const refailed = await waitForJob(tenant.apiKey, failed.id);
    expect(refailed).toMatchObject({ status: 'failed', attempt: 2, leaseUntil: null });
    expect(refailed.error?.code).toBe('source_unreadable');
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(0);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('fails a source longer than the plan allows with source_too_long', async () => {
    const tenant = await createTenant();
    await overrideLimits(tenant.companyId, { transcodeMaxDurationSeconds: 2 });
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 3 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'wav' });
    const job = await waitForJob(tenant.apiKey, (res.json.job as Job).id);
    expect(job).toMatchObject({ status: 'failed', leaseUntil: null, error: { code: 'source_too_long' } });
  });
});

describe('Audio-only transcodes on the Express machine (decision 0046)', () => {
  it('converts a short source in one Express execution of transcode-audio', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 3 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'flac_16k_mono' });
    const id = (res.json.job as Job).id;
    expect(await waitForJob(tenant.apiKey, id)).toMatchObject({ status: 'done', billedSeconds: 3 });
    expect(await executionArnOf(tenant.companyId, id)).toMatch(
      new RegExp(`:express:transcode-audio:${id}-a1:[0-9a-f-]+$`),
    );
  });

  it('writes no transcoding state for a conversion done within START_MS: done records what the probe found (0055)', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 2 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'ogg_opus' });
    const id = (res.json.job as Job).id;
    const seen = new Set<string>();
    const done = await waitForJob(
      tenant.apiKey,
      id,
      (j) => {
        seen.add(j.status);
        return ['done', 'failed', 'canceled'].includes(j.status);
      },
      45_000,
      20,
    );
    expect(done).toMatchObject({ status: 'done', durationSeconds: 2, billedSeconds: 2, leaseUntil: null });
    expect(done.progress).toEqual({ phase: 'done', percent: 100 });
    expect([...seen].filter((status) => !['pending', 'probing', 'done'].includes(status))).toEqual([]);
    expect(await engineOf(tenant.companyId, id)).toBe('ffmpeg');
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('hands a source longer than 15 minutes to a Standard execution of the same name, billed once', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'long', { seconds: 1200 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'wav' });
    const id = (res.json.job as Job).id;
    const done = await waitForJob(tenant.apiKey, id, undefined, 120_000);
    expect(done).toMatchObject({ status: 'done', billedSeconds: 1200, durationSeconds: 1200 });
    expect(await executionArnOf(tenant.companyId, id)).toMatch(new RegExp(`:execution:transcode:${id}-a1$`));
    expect(await engineOf(tenant.companyId, id)).toBe('ffmpeg');
    await waitForSettled(tenant.apiKey, 'transcode.done', id);
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(1200);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('cancels while an Express execution converts: canceled, its end records and bills nothing', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'long', { seconds: 900 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'ogg_opus' });
    const id = (res.json.job as Job).id;
    await waitForJob(
      tenant.apiKey,
      id,
      (j) => j.status === 'transcoding' && ffmpegProcessesOf(id).length > 0,
    );
    expect(await executionArnOf(tenant.companyId, id)).toMatch(/:express:transcode-audio:/);
    const canceled = await cancel(tenant.apiKey, id);
    expect(canceled.status).toBe(200);
    expect(canceled.json.job).toMatchObject({ status: 'canceled', leaseUntil: null });
    // The conversion ends (at its end, or at a progress write the job refuses); finalize then writes nothing.
    const deadline = Date.now() + 60_000;
    while (ffmpegProcessesOf(id).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(ffmpegProcessesOf(id)).toEqual([]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await getJob(tenant.apiKey, id)).toMatchObject({
      status: 'canceled',
      leaseUntil: null,
      output: null,
      billedSeconds: 0,
    });
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(0);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });
});

describe('Transcode job state table: cancel', () => {
  it.each(['pending', 'probing', 'transcoding', 'finalizing'] as const)(
    'cancels a %s job: canceled, lease cleared, queue slot released',
    async (status) => {
      const tenant = await createTenant();
      const job = await seedJob(tenant.companyId, status);
      expect(await queueOf(tenant.companyId)).toBe(1);
      const res = await cancel(tenant.apiKey, job.jobId);
      expect(res.status).toBe(200);
      expect(res.json.job).toMatchObject({
        id: job.jobId,
        status: 'canceled',
        leaseUntil: null,
        output: null,
      });
      const stored = await getJob(tenant.apiKey, job.jobId);
      expect(stored).toMatchObject({ status: 'canceled', leaseUntil: null });
      expect(await queueOf(tenant.companyId)).toBe(0);
    },
  );

  it.each(['done', 'failed', 'canceled'] as const)(
    'refuses to cancel a %s job with 409 transcode_job_not_cancelable, unchanged',
    async (status) => {
      const tenant = await createTenant();
      const job = await seedJob(tenant.companyId, status);
      const res = await cancel(tenant.apiKey, job.jobId);
      expectProblem(res, 409, 'transcode_job_not_cancelable');
      expect(res.json.status).toBe(409);
      expect(res.json.jobStatus).toBe(status);
      expect((await getJob(tenant.apiKey, job.jobId)).status).toBe(status);
    },
  );

  it('cancels while transcoding: ffmpeg is killed, the job stays canceled with no lease and no output', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'long', { seconds: 3600 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'ogg_opus' });
    expect(res.status).toBe(202);
    const id = (res.json.job as Job).id;
    await waitForJob(
      tenant.apiKey,
      id,
      (j) => j.status === 'transcoding' && ffmpegProcessesOf(id).length > 0,
    );
    const canceled = await cancel(tenant.apiKey, id);
    expect(canceled.status).toBe(200);
    expect(canceled.json.job).toMatchObject({ status: 'canceled', leaseUntil: null });
    const deadline = Date.now() + 10_000;
    while (ffmpegProcessesOf(id).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(ffmpegProcessesOf(id)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(await getJob(tenant.apiKey, id)).toMatchObject({
      status: 'canceled',
      leaseUntil: null,
      output: null,
    });
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(0);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  const finalizeWorker = async (head?: (bucket: string, fullPath: string) => Promise<unknown>) => {
    const { createTranscodeWorker } = await import('../../functions/workers/transcode/worker');
    const { probeWithFfprobe } = await import('../../functions/local/media-engine');
    const { headObject } = await import('../../functions/shared/aws/s3-objects');
    return createTranscodeWorker({
      probe: probeWithFfprobe,
      head: async (bucket, fullPath) => {
        await head?.(bucket, fullPath);
        return headObject(bucket, fullPath);
      },
    });
  };

  const finalizeInput = (companyId: string, jobId: string, output: { bucket: string; fullPath: string }) => ({
    action: 'finalize' as const,
    companyId,
    jobId,
    attempt: 1,
    durationSeconds: 3,
    output: { ...output, contentType: 'audio/wav' },
  });

  /** A canceled outcome: 200 for the cancel, the worker ends quietly, nothing billed, no reuse entry. */
  const expectCanceledCleanly = async (
    tenant: { apiKey: string; companyId: string },
    jobId: string,
    finalize: PromiseSettledResult<unknown>,
    cancelStatus: number,
  ) => {
    expect(cancelStatus).toBe(200);
    expect(finalize.status === 'rejected' && (finalize.reason as Error).name).toBe('TranscodeJobGone');
    const final = await getJob(tenant.apiKey, jobId);
    expect(final).toMatchObject({ status: 'canceled', billedSeconds: 0, leaseUntil: null, output: null });
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(0);
    expect(await reuseItemsOf(tenant.companyId)).toEqual([]);
    expect(await queueOf(tenant.companyId)).toBe(0);
  };

  it('cancel before finalize starts: canceled, nothing billed, no reuse entry', async () => {
    const worker = await finalizeWorker();
    const tenant = await createTenant();
    const output = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const job = await seedJob(tenant.companyId, 'transcoding', { source: output });
    const canceled = await cancel(tenant.apiKey, job.jobId);
    const [finalize] = await Promise.allSettled([worker(finalizeInput(tenant.companyId, job.jobId, output))]);
    await expectCanceledCleanly(
      tenant,
      job.jobId,
      finalize as PromiseSettledResult<unknown>,
      canceled.status,
    );
  });

  it('cancel during finalize (while the output is inspected): canceled, nothing billed, no reuse entry', async () => {
    const tenant = await createTenant();
    const output = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const job = await seedJob(tenant.companyId, 'transcoding', { source: output });
    let cancelStatus = 0;
    const worker = await finalizeWorker(async () => {
      // Finalize makes no move before the one to `done`, which records the output and bills in one transaction.
      expect((await getJob(tenant.apiKey, job.jobId)).status).toBe('transcoding');
      cancelStatus = (await cancel(tenant.apiKey, job.jobId)).status;
    });
    const [finalize] = await Promise.allSettled([worker(finalizeInput(tenant.companyId, job.jobId, output))]);
    await expectCanceledCleanly(tenant, job.jobId, finalize as PromiseSettledResult<unknown>, cancelStatus);
  });

  it('cancel after finalize completed: 409, done, billed once, with its reuse entry', async () => {
    const worker = await finalizeWorker();
    const tenant = await createTenant();
    const output = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const job = await seedJob(tenant.companyId, 'transcoding', { source: output });
    await worker(finalizeInput(tenant.companyId, job.jobId, output));
    expectProblem(await cancel(tenant.apiKey, job.jobId), 409, 'transcode_job_not_cancelable');
    const final = await getJob(tenant.apiKey, job.jobId);
    expect(final).toMatchObject({ status: 'done', billedSeconds: 3, leaseUntil: null });
    await waitForSettled(tenant.apiKey, 'transcode.done', job.jobId);
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(3);
    expect(await reuseItemsOf(tenant.companyId)).toHaveLength(1);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('an end between the done transaction and the reuse put leaves the job done, billed once and listed: only that reuse is lost (0061)', async () => {
    const worker = await finalizeWorker();
    const tenant = await createTenant();
    const output = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const job = await seedJob(tenant.companyId, 'transcoding', { source: output });
    // The reuse entry's put never lands, as when the invocation ends right after the move committed.
    const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
    const send = DynamoDBDocumentClient.prototype.send;
    const lost = vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(function (
      this: unknown,
      ...args: unknown[]
    ) {
      const [command] = args as [{ input: unknown }];
      if (JSON.stringify(command.input).includes('"REUSE#')) return Promise.reject(new Error('ended'));
      return (send as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    } as never);
    try {
      await worker(finalizeInput(tenant.companyId, job.jobId, output));
    } finally {
      lost.mockRestore();
    }
    const expectDoneOnce = async () => {
      expect(await getJob(tenant.apiKey, job.jobId)).toMatchObject({
        status: 'done',
        billedSeconds: 3,
        leaseUntil: null,
        output: { fullPath: output.fullPath },
      });
      await waitForSettled(tenant.apiKey, 'transcode.done', job.jobId);
      expect(await transcodeSecondsOf(tenant.apiKey)).toBe(3);
      expect(await queueOf(tenant.companyId)).toBe(0);
    };
    await expectDoneOnce();
    expect(await reuseItemsOf(tenant.companyId)).toEqual([]);
    const listed = await call('GET', '/v1/storage/files', { headers: { 'x-api-key': tenant.apiKey } });
    expect((listed.json.files as { fullPath: string }[]).map((f) => f.fullPath)).toContain(output.fullPath);
    // The machine's retry of Finalize finds the job done and ends as gone; its failure path is refused.
    await expect(worker(finalizeInput(tenant.companyId, job.jobId, output))).rejects.toMatchObject({
      name: 'TranscodeJobGone',
    });
    const failed = { action: 'fail' as const, companyId: tenant.companyId, jobId: job.jobId, attempt: 1 };
    expect(await worker({ ...failed, error: { Error: 'Lambda.Unknown' } })).toMatchObject({
      recorded: false,
    });
    await expectDoneOnce();
  });

  it('resolves racing cancel and finalize to exactly one final state, billed and reusable only if done', async () => {
    const worker = await finalizeWorker();
    for (let round = 0; round < 6; round++) {
      const tenant = await createTenant();
      const output = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
      const job = await seedJob(tenant.companyId, 'transcoding', { source: output });
      const [finalize, canceled] = await Promise.allSettled([
        worker(finalizeInput(tenant.companyId, job.jobId, output)),
        cancel(tenant.apiKey, job.jobId),
      ]);
      const final = await getJob(tenant.apiKey, job.jobId);
      expect(['done', 'canceled']).toContain(final.status);
      const cancelStatus = canceled.status === 'fulfilled' ? canceled.value.status : 0;
      if (final.status === 'canceled') {
        await expectCanceledCleanly(tenant, job.jobId, finalize, cancelStatus);
      } else {
        expect(finalize.status).toBe('fulfilled');
        expect(cancelStatus).toBe(409);
        expect(final.billedSeconds).toBe(3);
        await waitForSettled(tenant.apiKey, 'transcode.done', job.jobId);
        expect(await transcodeSecondsOf(tenant.apiKey)).toBe(3);
        expect(await reuseItemsOf(tenant.companyId)).toHaveLength(1);
      }
      expect(final.leaseUntil).toBeNull();
      expect(await queueOf(tenant.companyId)).toBe(0);
    }
  });
});

describe('Transcode job state table: retry', () => {
  it('retries a canceled job from scratch as the next attempt, which completes', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 2 });
    const job = await seedJob(tenant.companyId, 'canceled', { source, preset: 'flac_16k_mono' });
    const res = await retry(tenant.apiKey, job.jobId);
    expect(res.status).toBe(202);
    expect(res.json.job).toMatchObject({ status: 'pending', attempt: 2, leaseUntil: null, output: null });
    const done = await waitForJob(tenant.apiKey, job.jobId);
    expect(done).toMatchObject({ status: 'done', attempt: 2, billedSeconds: 2 });
    expect(done.output?.fullPath).toContain(`/transcodes/${job.jobId}/a2/output.flac`);
  });

  it.each(['pending', 'probing', 'transcoding', 'finalizing', 'done'] as const)(
    'refuses to retry a %s job with 409 transcode_job_not_retryable, unchanged',
    async (status) => {
      const tenant = await createTenant();
      const job = await seedJob(tenant.companyId, status);
      const res = await retry(tenant.apiKey, job.jobId);
      expectProblem(res, 409, 'transcode_job_not_retryable');
      expect(res.json.status).toBe(409);
      expect(res.json.jobStatus).toBe(status);
      const after = await getJob(tenant.apiKey, job.jobId);
      expect(after).toMatchObject({ status, attempt: 1 });
    },
  );

  it.each(['failed', 'canceled'] as const)(
    'refuses to retry a %s job whose worker lease is still in the future',
    async (status) => {
      const tenant = await createTenant();
      const job = await seedJob(tenant.companyId, status);
      await setLease(tenant.companyId, job.jobId, new Date(Date.now() + 300_000));
      const res = await retry(tenant.apiKey, job.jobId);
      expectProblem(res, 409, 'transcode_job_not_retryable');
      expect(typeof res.json.leaseUntil).toBe('string');
      expect(await getJob(tenant.apiKey, job.jobId)).toMatchObject({ status, attempt: 1 });
      expect(await queueOf(tenant.companyId)).toBe(0);
    },
  );

  it('retries a failed job whose lease has expired', async () => {
    const tenant = await createTenant();
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const job = await seedJob(tenant.companyId, 'failed', { source });
    await setLease(tenant.companyId, job.jobId, new Date(Date.now() - 1000));
    const res = await retry(tenant.apiKey, job.jobId);
    expect(res.status).toBe(202);
    expect((await waitForJob(tenant.apiKey, job.jobId)).status).toBe('done');
  });
});

describe('Transcode quota and queue cap', () => {
  it('refuses enqueue and retry with 429 transcode_quota_exceeded once the month is used up', async () => {
    const tenant = await createTenant();
    await overrideLimits(tenant.companyId, { transcodeSecondsPerMonth: 5 });
    const { addToMeter } = await import('../../functions/shared/data/usage-meters');
    const failed = await seedJob(tenant.companyId, 'failed');
    await addToMeter(tenant.companyId, 'transcode_seconds', 5, new Date());
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'wav' });
    expectProblem(res, 429, 'transcode_quota_exceeded');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expectProblem(await retry(tenant.apiKey, failed.jobId), 429, 'transcode_quota_exceeded');
    expect((await getJob(tenant.apiKey, failed.jobId)).status).toBe('failed');
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it('refuses enqueue and retry with 429 transcode_queue_full and Retry-After at the cap', async () => {
    const tenant = await createTenant(); // free plan: 2 unfinished jobs
    const failed = await seedJob(tenant.companyId, 'failed');
    await seedJob(tenant.companyId, 'pending');
    await seedJob(tenant.companyId, 'transcoding');
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const res = await enqueue(tenant.apiKey, { ...source, preset: 'wav' });
    expectProblem(res, 429, 'transcode_queue_full');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expectProblem(await retry(tenant.apiKey, failed.jobId), 429, 'transcode_queue_full');
    expect(await getJob(tenant.apiKey, failed.jobId)).toMatchObject({ status: 'failed', attempt: 1 });
    expect(await queueOf(tenant.companyId)).toBe(2);
  });

  it('keeps the queue counter exact under concurrent enqueues, cancels and completions', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    await overrideLimits(tenant.companyId, { transcodeQueueCap: 3 });
    const source = await storeSource(tenant.companyId, 'long', { seconds: 1800 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        enqueue(tenant.apiKey, { ...source, preset: presets.TRANSCODE_PRESETS[i % 4] }),
      ),
    );
    const accepted = results.filter((r) => r.status === 202);
    const refused = results.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(3);
    expect(refused).toHaveLength(9);
    for (const r of refused) expect(r.json.code).toBe('transcode_queue_full');
    expect(await queueOf(tenant.companyId)).toBe(3);
    // Racing cancels (two per job) while the executions run: one wins per job, the slot is released once.
    const ids = accepted.map((r) => (r.json.job as Job).id);
    const cancels = await Promise.all(
      ids.flatMap((id) => [cancel(tenant.apiKey, id), cancel(tenant.apiKey, id)]),
    );
    expect(cancels.filter((r) => r.status === 200)).toHaveLength(3);
    for (const id of ids) expect((await waitForJob(tenant.apiKey, id)).status).toBe('canceled');
    expect(await queueOf(tenant.companyId)).toBe(0);

    // Directly at the data module: 20 racing creates against a cap of 5, then racing cancels and failures.
    const { transcodeJobs } = await import('../../functions/shared/domain/transcodes');
    const { lifecycle, moves } = transcodeJobs;
    const other = await createTenant();
    const seeds = Array.from({ length: 20 }, (_, i) => ({
      jobId: `tc_race${i}${Math.random().toString(36).slice(2, 8)}`,
      companyId: other.companyId,
      status: 'pending' as const,
      preset: 'wav' as const,
      source: { bucket: 'b', fullPath: `companies/${other.companyId}/x`, size: 1, etag: 'e' },
      attempt: 1,
      reused: false,
      billedSeconds: 0,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      attemptStartedAt: new Date().toISOString(),
    }));
    const created = await Promise.allSettled(seeds.map((s) => lifecycle.createJob(s, 5)));
    const ok = seeds.filter((_, i) => created[i]?.status === 'fulfilled');
    expect(ok).toHaveLength(5);
    expect(await lifecycle.readQueue(other.companyId)).toBe(5);
    const now = new Date();
    await Promise.allSettled(
      ok.flatMap((s) => [
        moves.cancel(s, now),
        moves.fail({ job: s, error: { code: 'internal', message: 'x' }, now }),
        moves.cancel(s, now),
      ]),
    );
    expect(await lifecycle.readQueue(other.companyId)).toBe(0);
  });
});

describe('Transcode isolation and validation', () => {
  it("answers 404 to another tenant's job ids and source paths", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const job = await seedJob(a.companyId, 'failed');
    for (const res of [
      await call('GET', `/v1/transcodes/${job.jobId}`, { headers: { 'x-api-key': b.apiKey } }),
      await cancel(b.apiKey, job.jobId),
      await retry(b.apiKey, job.jobId),
    ]) {
      expectProblem(res, 404, 'not_found');
    }
    const source = await storeSource(a.companyId, 'tone', { seconds: 1 });
    expectProblem(await enqueue(b.apiKey, { ...source, preset: 'wav' }), 404, 'not_found');
    expect(await getJob(a.apiKey, job.jobId)).toMatchObject({ status: 'failed', attempt: 1 });
  });

  it('answers 404 for a missing source and an unknown job id', async () => {
    const t = await createTenant();
    expectProblem(
      await enqueue(t.apiKey, { fullPath: `companies/${t.companyId}/nothing.wav`, preset: 'wav' }),
      404,
      'not_found',
    );
    expectProblem(
      await call('GET', '/v1/transcodes/tc_unknown', { headers: { 'x-api-key': t.apiKey } }),
      404,
      'not_found',
    );
  });

  it.each([
    [{ fullPath: 'x.wav', preset: 'mp3' }, '/body/preset'],
    [{ preset: 'wav' }, '/body/fullPath'],
  ])('refuses %j with 400 validation_failed', async (body, pointer) => {
    const t = await createTenant();
    const res = await enqueue(t.apiKey, body);
    expectProblem(res, 400, 'validation_failed');
    expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer)).toContain(pointer);
  });

  it.each([
    [{ fullPath: 'companies/../etc/passwd', preset: 'wav' }, '/body/fullPath'],
    [{ fullPath: 'companies/x/a.wav', preset: 'wav', bucket: 'someone-elses-bucket' }, '/body/bucket'],
  ])('refuses %j with 400 invalid_storage_reference', async (body, pointer) => {
    const t = await createTenant();
    const res = await enqueue(t.apiKey, body);
    expectProblem(res, 400, 'invalid_storage_reference');
    expect((res.json.errors as { pointer: string }[]).map((e) => e.pointer)).toContain(pointer);
  });

  it('refuses a credential without transcodes scopes with 403 insufficient_scope', async () => {
    const t = await createTenant({ scopes: ['company:read'] });
    expectProblem(
      await call('GET', '/v1/transcodes/tc_x', { headers: { 'x-api-key': t.apiKey } }),
      403,
      'insufficient_scope',
    );
  });
});

describe('Transcode worker: a repeated invocation of the same attempt', () => {
  const worker = async () => {
    const { createTranscodeWorker } = await import('../../functions/workers/transcode/worker');
    const { probeWithFfprobe } = await import('../../functions/local/media-engine');
    return createTranscodeWorker({ probe: probeWithFfprobe });
  };

  it.each(['probing', 'transcoding'] as const)(
    'probe of a job already %s continues: it returns the engine input and leaves the job transcoding',
    async (status) => {
      const tenant = await createTenant();
      const source = await storeSource(tenant.companyId, 'tone', { seconds: 2 });
      const job = await seedJob(tenant.companyId, status, { source });
      const result = (await (
        await worker()
      )({
        action: 'probe',
        companyId: tenant.companyId,
        jobId: job.jobId,
        attempt: 1,
      })) as { reused: boolean; output?: { fullPath: string }; engine?: string; conversion?: unknown };
      expect(result.reused).toBe(false);
      expect(result.output?.fullPath).toContain(`/transcodes/${job.jobId}/a1/output.wav`);
      // A wav is an audio-only preset: the engine input is the ffmpeg function's.
      expect(result.engine).toBe('ffmpeg');
      expect(result.conversion).toMatchObject({ preset: 'wav', output: result.output });
      expect(await getJob(tenant.apiKey, job.jobId)).toMatchObject({ status: 'transcoding', attempt: 1 });
      expect(await queueOf(tenant.companyId)).toBe(1);
    },
  );

  it('finalize of a job already finalizing completes it: done, billed once, queue slot released', async () => {
    const tenant = await createTenant();
    const output = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const job = await seedJob(tenant.companyId, 'finalizing', { source: output });
    await (await worker())({
      action: 'finalize',
      companyId: tenant.companyId,
      jobId: job.jobId,
      attempt: 1,
      durationSeconds: 3,
      output: { ...output, contentType: 'audio/wav' },
    });
    expect(await getJob(tenant.apiKey, job.jobId)).toMatchObject({
      status: 'done',
      billedSeconds: 3,
      leaseUntil: null,
    });
    await waitForSettled(tenant.apiKey, 'transcode.done', job.jobId);
    expect(await transcodeSecondsOf(tenant.apiKey)).toBe(3);
    expect(await queueOf(tenant.companyId)).toBe(0);
  });

  it.each([
    ['a canceled job', 'canceled', 1],
    ['another attempt', 'probing', 2],
  ] as const)('probe of %s still ends quietly as TranscodeJobGone', async (_name, status, attempt) => {
    const tenant = await createTenant();
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const job = await seedJob(tenant.companyId, status, { source });
    await expect(
      (await worker())({ action: 'probe', companyId: tenant.companyId, jobId: job.jobId, attempt }),
    ).rejects.toMatchObject({ name: 'TranscodeJobGone' });
    expect(await getJob(tenant.apiKey, job.jobId)).toMatchObject({ status, attempt: 1 });
  });
});

describe('POST /v1/transcodes: hostile source references', () => {
  it('refuses every reference of the shared hostile corpus (400 or 404) and enqueues nothing', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const other = await createTenant();
    const bucket = process.env.BUCKET_NAME ?? '';
    // A stored object of the other company, so a foreign reference names something that exists.
    await storeSource(other.companyId, 'tone', { seconds: 1, name: 'x/file.png' });
    const cases = hostileStorageReferences(tenant.companyId, other.companyId, bucket);
    expect(cases.length).toBeGreaterThanOrEqual(30);
    for (const hostile of cases) {
      const res = await enqueue(tenant.apiKey, { ...hostile.reference, preset: 'wav' });
      expectHostileRefusal(res, hostile, 'body');
    }
    expect(await queueOf(tenant.companyId)).toBe(0);
  });
});

describe('Transcode worker: MediaConvert progress events', () => {
  const progress = async (detail: Record<string, unknown>) => {
    const { createTranscodeWorker } = await import('../../functions/workers/transcode/worker');
    const { probeWithFfprobe } = await import('../../functions/local/media-engine');
    return createTranscodeWorker({ probe: probeWithFfprobe })({ action: 'progress', detail } as never);
  };
  const event = (companyId: string, jobId: string, attempt: number, percent: number) => ({
    status: 'STATUS_UPDATE',
    userMetadata: { stateMachine: 'transcode', companyId, jobId, attempt: String(attempt), preset: 'wav' },
    jobProgress: { jobPercentComplete: percent, currentPhase: 'TRANSCODING' },
  });

  it('records the percent complete of a transcoding job, visible on GET', async () => {
    const tenant = await createTenant();
    const job = await seedJob(tenant.companyId, 'transcoding');
    expect(await progress(event(tenant.companyId, job.jobId, 1, 42))).toEqual({
      recorded: true,
      percent: 42,
    });
    expect((await getJob(tenant.apiKey, job.jobId)).progress).toEqual({ phase: 'transcoding', percent: 42 });
  });

  it.each([
    ['a canceled job', 'canceled', 1],
    ['a finalizing job', 'finalizing', 1],
    ['another attempt', 'transcoding', 2],
  ] as const)('ignores an event for %s, leaving it unchanged', async (_name, status, attempt) => {
    const tenant = await createTenant();
    const job = await seedJob(tenant.companyId, status);
    const before = await getJob(tenant.apiKey, job.jobId);
    expect(await progress(event(tenant.companyId, job.jobId, attempt, 42))).toEqual({ recorded: false });
    expect(await getJob(tenant.apiKey, job.jobId)).toEqual(before);
  });

  it('ignores events that are not status updates of a job of this machine', async () => {
    const tenant = await createTenant();
    const job = await seedJob(tenant.companyId, 'transcoding');
    const base = event(tenant.companyId, job.jobId, 1, 42);
    expect(await progress({ ...base, status: 'PROGRESSING' })).toEqual({ recorded: false });
    expect(await progress({ ...base, userMetadata: {} })).toEqual({ recorded: false });
    expect(await progress({ ...base, jobProgress: {} })).toEqual({ recorded: false });
    expect((await getJob(tenant.apiKey, job.jobId)).progress).toEqual({ phase: 'transcoding', percent: 0 });
  });
});
