import { describe, expect, it } from 'vitest';
import { AUTHORIZER_CACHE_TTL_SECONDS } from './local-stack-process';
import { call, createTenant, demoApiKey, expectProblem, revokeKey } from './support';

describe('GET /v1/self with API keys', () => {
  it('returns the demo company for the seeded demo key', async () => {
    const res = await call('GET', '/v1/self', { headers: { 'x-api-key': demoApiKey } });
    expect(res.status).toBe(200);
    expect(res.json.company).toMatchObject({ name: 'Demo Company', planId: 'starter', status: 'active' });
  });

  it("returns the caller's own company profile with its subscription period", async () => {
    const tenant = await createTenant({ plan: 'free', name: 'Acme Self' });
    const res = await call('GET', '/v1/self', { headers: { 'x-api-key': tenant.apiKey } });
    expect(res.status).toBe(200);
    const company = res.json.company as Record<string, unknown> & { subscription: Record<string, string> };
    expect(company).toMatchObject({
      id: tenant.companyId,
      name: 'Acme Self',
      planId: 'free',
      status: 'active',
    });
    const start = Date.parse(company.subscription.currentPeriodStart ?? '');
    const end = Date.parse(company.subscription.currentPeriodEnd ?? '');
    expect(start).toBeLessThanOrEqual(Date.now());
    expect(end).toBeGreaterThan(Date.now());
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts an sk- key in x-auth-token and resolves the same company', async () => {
    const tenant = await createTenant();
    const res = await call('GET', '/v1/self', { headers: { 'x-auth-token': tenant.apiKey } });
    expect(res.status).toBe(200);
    expect((res.json.company as { id: string }).id).toBe(tenant.companyId);
  });

  it('never shows one tenant another tenant’s company', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const resA = await call('GET', '/v1/self', { headers: { 'x-api-key': a.apiKey } });
    const resB = await call('GET', '/v1/self', { headers: { 'x-api-key': b.apiKey } });
    expect((resA.json.company as { id: string }).id).toBe(a.companyId);
    expect((resB.json.company as { id: string }).id).toBe(b.companyId);
  });

  it('refuses a request without any credential with 401 problem+json', async () => {
    expectProblem(await call('GET', '/v1/self'), 401, 'unauthorized');
  });

  it('stops accepting a revoked key once the authorizer decision expires', async () => {
    const tenant = await createTenant();
    const headers = { 'x-api-key': tenant.apiKey };
    expect((await call('GET', '/v1/self', { headers })).status).toBe(200);
    await revokeKey(tenant.companyId, tenant.keyId);
    await new Promise((r) => setTimeout(r, AUTHORIZER_CACHE_TTL_SECONDS * 1000 + 200));
    expectProblem(await call('GET', '/v1/self', { headers }), 401, 'unauthorized');
  });

  it('answers unknown, malformed and revoked keys with the same 401', async () => {
    const tenant = await createTenant();
    await revokeKey(tenant.companyId, tenant.keyId);

    const unknown = `sk-${'A'.repeat(43)}`;
    const cases = [unknown, 'sk-short', 'not-a-key', '', tenant.apiKey];
    const bodies: unknown[] = [];
    for (const key of cases) {
      const res = await call('GET', '/v1/self', { headers: { 'x-api-key': key } });
      expectProblem(res, 401, 'unauthorized');
      const { requestId: _ignored, ...rest } = res.json;
      bodies.push(rest);
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('does not fall through to a lower header when x-api-key is invalid', async () => {
    const tenant = await createTenant();
    const res = await call('GET', '/v1/self', {
      headers: { 'x-api-key': `sk-${'B'.repeat(43)}`, 'x-auth-token': tenant.apiKey },
    });
    expectProblem(res, 401, 'unauthorized');
  });

  it('refuses a key without the route scope with 403 insufficient_scope naming the scope', async () => {
    const tenant = await createTenant({ scopes: ['usage:read'] });
    const res = await call('GET', '/v1/self', { headers: { 'x-api-key': tenant.apiKey } });
    expectProblem(res, 403, 'insufficient_scope');
    expect(res.json.detail).toContain('company:read');
  });
});
