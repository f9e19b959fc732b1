import { describe, expect, it } from 'vitest';
import { call, createTenant } from './support';

const { listLogEntries } = await import('../../functions/shared/data/log-entry-reads');
const { readUsage } = await import('../../functions/shared/data/usage-meters');

const eventually = async <T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms = 20_000,
): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('log_entries audit trail', () => {
  it('records one entry per request of the company, newest first, without the credential', async () => {
    const tenant = await createTenant();
    const headers = { 'x-api-key': tenant.apiKey, 'user-agent': 'audit-probe/1.0' };
    const first = await call('GET', '/v1/self', { headers });
    const second = await call('GET', '/v1/usage?granularity=day', { headers });
    const entries = await eventually(
      () => listLogEntries(tenant.companyId),
      (e) => e.length >= 2,
    );
    expect(entries.map((e) => e.requestId)).toEqual([
      second.headers.get('x-request-id'),
      first.headers.get('x-request-id'),
    ]);
    expect(entries[1]).toMatchObject({
      method: 'GET',
      path: '/v1/self',
      route: '/self',
      status: 200,
      authMethod: 'api_key',
      keyId: tenant.keyId,
      sourceIp: '127.0.0.1',
      userAgent: 'audit-probe/1.0',
    });
    expect(JSON.stringify(entries)).not.toContain(tenant.apiKey);
  });

  it("keeps each company's entries in its own partition", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await call('GET', '/v1/self', { headers: { 'x-api-key': a.apiKey } });
    await eventually(
      () => listLogEntries(a.companyId),
      (e) => e.length >= 1,
    );
    expect(await listLogEntries(b.companyId)).toEqual([]);
  });

  it('adds request handling time to the api compute meter', async () => {
    const tenant = await createTenant();
    await call('GET', '/v1/self', { headers: { 'x-api-key': tenant.apiKey } });
    const usage = await eventually(
      () => readUsage(tenant.companyId, new Date(), 'month'),
      (u) => u.computeMs.api > 0,
    );
    expect(usage.computeMs.api).toBeGreaterThan(0);
  });
});
