import { describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

type Snapshot = {
  window: { granularity: string; start: string; end: string };
  asOf: string;
  meters: Record<string, number>;
  computeMs: Record<string, number>;
  storageBytes: number;
  databaseBytes: number;
  plan: { id: string; limits: Record<string, number> };
  subscription: { currentPeriodStart: string; currentPeriodEnd: string };
};

describe('GET /v1/usage', () => {
  it('returns the month snapshot wrapped as {success, usage}, counting this request', async () => {
    const tenant = await createTenant({ plan: 'starter' });
    const headers = { 'x-api-key': tenant.apiKey };
    await call('GET', '/v1/self', { headers });
    const res = await call('GET', '/v1/usage', { headers });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    const usage = res.json.usage as Snapshot;
    const now = new Date();
    expect(usage.window).toEqual({
      granularity: 'month',
      start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    });
    expect(usage.meters).toEqual({
      api_requests: 2,
      transcode_seconds: 0,
      transcription_seconds: 0,
      speech_characters: 0,
      workflow_runs: 0,
    });
    expect(Object.keys(usage.computeMs).sort()).toEqual(['api', 'media', 'workers', 'workflows']);
    expect(usage.plan.id).toBe('starter');
    expect(usage.plan.limits.apiRequestsPerMonth).toBe(500_000);
    expect(Date.parse(usage.asOf)).toBeGreaterThan(Date.now() - 60_000);
    expect(usage).toHaveProperty('storageBytes', 0);
    expect(usage).toHaveProperty('databaseBytes', 0);
  });

  it('returns today from 00:00 UTC with granularity=day', async () => {
    const tenant = await createTenant();
    const res = await call('GET', '/v1/usage?granularity=day', { headers: { 'x-api-key': tenant.apiKey } });
    const usage = res.json.usage as Snapshot;
    expect(usage.window.granularity).toBe('day');
    expect(usage.window.start.endsWith('T00:00:00.000Z')).toBe(true);
    expect(Date.parse(usage.window.end) - Date.parse(usage.window.start)).toBe(86_400_000);
    expect(usage.meters.api_requests).toBe(1);
  });

  it.each(['week', 'MONTH', ''])('refuses granularity=%j with 400', async (value) => {
    const tenant = await createTenant();
    const res = await call('GET', `/v1/usage?granularity=${value}`, {
      headers: { 'x-api-key': tenant.apiKey },
    });
    expectProblem(res, 400, 'validation_failed');
  });

  it('shows each tenant only its own meters', async () => {
    const a = await createTenant();
    const b = await createTenant();
    for (let i = 0; i < 3; i++) await call('GET', '/v1/self', { headers: { 'x-api-key': a.apiKey } });
    const res = await call('GET', '/v1/usage', { headers: { 'x-api-key': b.apiKey } });
    expect((res.json.usage as Snapshot).meters.api_requests).toBe(1);
  });
});
