import { describe, expect, it } from 'vitest';
import { call, createTenant, waitForSettled } from './support';
import * as transcodes from './transcode-support';
import * as transcriptions from './transcription-support';

type Usage = { meters: Record<string, number>; computeMs: Record<string, number> };

const usageOf = async (apiKey: string, granularity: 'month' | 'day' = 'month'): Promise<Usage> => {
  const res = await call('GET', `/v1/usage?granularity=${granularity}`, { headers: { 'x-api-key': apiKey } });
  expect(res.status).toBe(200);
  return res.json.usage as Usage;
};

describe('compute time of jobs in GET /v1/usage', () => {
  it('bills a transcode its worker and media time once; a reused result and a failed job add none', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const first = await transcodes.storeSource(tenant.companyId, 'tone', { seconds: 3, name: 'a.wav' });
    const enqueue = (source: { fullPath: string }, preset: string) =>
      call('POST', '/v1/transcodes', {
        headers: { 'x-api-key': tenant.apiKey },
        body: { fullPath: source.fullPath, preset },
      });
    const done = await transcodes.waitForJob(
      tenant.apiKey,
      ((await enqueue(first, 'wav')).json.job as transcodes.Job).id,
    );
    expect(done).toMatchObject({ status: 'done', reused: false, billedSeconds: 3 });
    await waitForSettled(tenant.apiKey, 'transcode.done', done.id);
    const after = await usageOf(tenant.apiKey);
    expect(after.computeMs.media).toBeGreaterThan(0);
    expect(after.computeMs.workers).toBeGreaterThan(0);
    // Today's window holds the same compute time (the job ran today).
    const today = await usageOf(tenant.apiKey, 'day');
    expect(today.computeMs.media).toBe(after.computeMs.media);
    expect(today.computeMs.workers).toBe(after.computeMs.workers);

    // The same content at another path: the stored result is reused, nothing is billed.
    const second = await transcodes.storeSource(tenant.companyId, 'tone', { seconds: 3, name: 'b.wav' });
    const reused = await transcodes.waitForJob(
      tenant.apiKey,
      ((await enqueue(second, 'wav')).json.job as transcodes.Job).id,
    );
    expect(reused).toMatchObject({ status: 'done', reused: true, billedSeconds: 0 });
    // A source the engine cannot read fails: nothing is billed.
    const corrupt = await transcodes.storeSource(tenant.companyId, 'corrupt');
    const failed = await transcodes.waitForJob(
      tenant.apiKey,
      ((await enqueue(corrupt, 'ogg_opus')).json.job as transcodes.Job).id,
    );
    expect(failed.status).toBe('failed');
    await waitForSettled(tenant.apiKey, 'transcode.done', reused.id);
    await waitForSettled(tenant.apiKey, 'transcode.failed', failed.id);
    const end = await usageOf(tenant.apiKey);
    expect(end.meters.transcode_seconds).toBe(3);
    expect(end.computeMs.media).toBe(after.computeMs.media);
    expect(end.computeMs.workers).toBe(after.computeMs.workers);
  });

  it('bills a transcription its worker and media time', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const source = await transcriptions.storeSource(tenant.companyId, 'amiable');
    const res = await transcriptions.enqueue(tenant.apiKey, source);
    expect(res.status).toBe(202);
    const job = await transcriptions.waitForJob(tenant.apiKey, (res.json.job as transcriptions.Job).id);
    expect(job.status).toBe('done');
    await waitForSettled(tenant.apiKey, 'transcription.done', job.id);
    const usage = await usageOf(tenant.apiKey);
    expect(usage.meters.transcription_seconds).toBe(job.billedSeconds);
    expect(usage.computeMs.media).toBeGreaterThan(0);
    expect(usage.computeMs.workers).toBeGreaterThan(0);
  });

  it('bills a synthesis its media time with its characters', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const res = await call('POST', '/v1/speech', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { text: 'The meters count every piece of work once.' },
    });
    expect(res.status).toBe(201);
    const usage = await usageOf(tenant.apiKey);
    expect(usage.computeMs.media).toBeGreaterThan(0);
    expect(usage.computeMs.workers).toBe(0);
  });
});
