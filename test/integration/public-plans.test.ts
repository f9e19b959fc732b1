import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, expectProblem, runAdmin } from './support';

const { DEFAULT_PLANS } = await import('../../functions/local/seed');

describe('GET /v1/public/plans', () => {
  it('returns the whole catalog without any credential', async () => {
    const res = await call('GET', '/v1/public/plans');
    expect(res.status).toBe(200);
    const plans = res.json.plans as { id: string; sellable: boolean; limits: Record<string, number> }[];
    expect(plans.map((p) => p.id)).toEqual(expect.arrayContaining(['free', 'starter', 'legacy-pro']));
    for (const plan of plans) {
      expect(plan).toMatchObject({ name: expect.any(String), price: { currency: 'USD' } });
      expect(plan.limits.apiRequestsPerMonth).toBeGreaterThan(0);
    }
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('returns only plans on sale with sellableOnly=true', async () => {
    const res = await call('GET', '/v1/public/plans?sellableOnly=true');
    const plans = res.json.plans as { id: string; sellable: boolean }[];
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every((p) => p.sellable)).toBe(true);
    expect(plans.map((p) => p.id)).not.toContain('legacy-pro');
  });

  it('returns every plan with sellableOnly=false', async () => {
    const res = await call('GET', '/v1/public/plans?sellableOnly=false');
    expect((res.json.plans as { id: string }[]).map((p) => p.id)).toContain('legacy-pro');
  });

  it.each(['maybe', 'TRUE', '1', ''])('refuses sellableOnly=%j with 400 validation_failed', async (value) => {
    const res = await call('GET', `/v1/public/plans?sellableOnly=${encodeURIComponent(value)}`);
    expectProblem(res, 400, 'validation_failed');
    expect(res.json.errors).toEqual([{ pointer: '/query/sellableOnly', message: expect.any(String) }]);
  });

  it('ignores credentials: a revoked or garbage key still reads the catalog', async () => {
    const res = await call('GET', '/v1/public/plans', { headers: { 'x-api-key': 'sk-garbage' } });
    expect(res.status).toBe(200);
  });

  it('is not given a plan whose request rate passes the usage meter ceiling (admin plans put)', async () => {
    const base = DEFAULT_PLANS[0];
    if (!base) throw new Error('no default plan');
    const id = `too-fast-${Math.random().toString(36).slice(2, 8)}`;
    const file = join(tmpdir(), `${id}.json`);
    writeFileSync(file, JSON.stringify({ ...base, id, limits: { ...base.limits, requestsPerSecond: 1000 } }));
    const refused = await runAdmin('plans', 'put', '--file', file, '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.err)).toMatchObject({ code: 'plan_rate_above_meter_ceiling' });
    const res = await call('GET', '/v1/public/plans');
    expect((res.json.plans as { id: string }[]).map((p) => p.id)).not.toContain(id);
  });
});
