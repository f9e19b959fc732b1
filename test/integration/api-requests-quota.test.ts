import { describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

const { DEFAULT_PLANS } = await import('../../functions/local/seed');
const { putPlan } = await import('../../functions/shared/data/plans');
const { ddb, tableName } = await import('../../functions/shared/data/client');
const { usageDayKey, usageMonthKey, utcDate, utcMonth, secondsToNextUtcMonth } = await import(
  '../../functions/shared/data/usage-meters'
);
const { GetCommand } = await import('@aws-sdk/lib-dynamodb');

const tinyPlan = async (apiRequestsPerMonth: number) => {
  const base = DEFAULT_PLANS[0];
  if (!base) throw new Error('no default plan');
  const id = `tiny-${Math.random().toString(36).slice(2, 8)}`;
  await putPlan(
    { ...base, id, sellable: false, limits: { ...base.limits, apiRequestsPerMonth } },
    new Date(),
  );
  return id;
};

const meterItem = async (companyId: string) => {
  const now = new Date();
  const get = async (Key: { pk: string; sk: string }) =>
    (await ddb.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item;
  const [month, day] = await Promise.all([
    get(usageMonthKey(companyId, utcMonth(now))),
    get(usageDayKey(companyId, utcDate(now))),
  ]);
  return {
    month: month?.api_requests as number | undefined,
    day: day?.api_requests as number | undefined,
  };
};

describe('api_requests meter and monthly quota', () => {
  it('counts each authenticated request in the UTC month and day', async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 3; i++) await call('GET', '/v1/self', { headers: { 'x-api-key': tenant.apiKey } });
    expect(await meterItem(tenant.companyId)).toEqual({ month: 3, day: 3 });
  });

  it('refuses requests past the allowance with 429 quota_exceeded and Retry-After, without counting them', async () => {
    const tenant = await createTenant({ plan: await tinyPlan(2) });
    const headers = { 'x-api-key': tenant.apiKey };
    expect((await call('GET', '/v1/self', { headers })).status).toBe(200);
    expect((await call('GET', '/v1/self', { headers })).status).toBe(200);
    const refused = await call('GET', '/v1/self', { headers });
    expectProblem(refused, 429, 'quota_exceeded');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(retryAfter - secondsToNextUtcMonth(new Date()))).toBeLessThan(30);
    // Refused before any other work: even a declared route not available yet answers 429, not 501.
    expectProblem(await call('POST', '/v1/speech', { headers, body: {} }), 429, 'quota_exceeded');
    expect((await meterItem(tenant.companyId)).month).toBe(2);
  });

  it('does not meter the public plan catalog', async () => {
    const tenant = await createTenant();
    await call('GET', '/v1/public/plans', { headers: { 'x-api-key': tenant.apiKey } });
    expect(await meterItem(tenant.companyId)).toEqual({ month: undefined, day: undefined });
  });

  it('counts requests of every auth header against the same meter', async () => {
    const tenant = await createTenant();
    await call('GET', '/v1/self', { headers: { 'x-api-key': tenant.apiKey } });
    await call('GET', '/v1/self', { headers: { 'x-auth-token': tenant.apiKey } });
    expect((await meterItem(tenant.companyId)).month).toBe(2);
  });
});
