import { describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

const { DEFAULT_PLANS } = await import('../../functions/local/seed');
const { putPlan } = await import('../../functions/shared/data/plans');
const { ddb, tableName } = await import('../../functions/shared/data/client');
const meters = await import('../../functions/shared/data/usage-meters');
const { usageDayKey, usageMonthKey, utcDate, utcMonth, secondsToNextUtcMonth } = meters;
const { API_REQUEST_SHARDS } = await import('../../functions/shared/types/meters');
const { getUsageSnapshot } = await import('../../functions/shared/domain/usage');
const { PutCommand, QueryCommand } = await import('@aws-sdk/lib-dynamodb');

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

/**
 * The month's and today's `api_requests` as stored: the month and day items (what was counted before the
 * shards) plus every shard's month count and its count of today (`dDD`), read straight from the table.
 */
const meterItem = async (companyId: string) => {
  const now = new Date();
  const month = usageMonthKey(companyId, utcMonth(now));
  const day = usageDayKey(companyId, utcDate(now));
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': month.pk },
      ConsistentRead: true,
    }),
  );
  const shards = Items.filter((item) => String(item.sk).startsWith(`${month.sk}#S`));
  const count = (item: Record<string, unknown> | undefined, name: string) => Number(item?.[name] ?? 0);
  const dayAttribute = `d${utcDate(now).slice(8, 10)}`;
  return {
    month:
      count(
        Items.find((item) => item.sk === month.sk),
        'api_requests',
      ) + shards.reduce((sum, shard) => sum + count(shard, 'api_requests'), 0),
    day:
      count(
        Items.find((item) => item.sk === day.sk),
        'api_requests',
      ) + shards.reduce((sum, shard) => sum + count(shard, dayAttribute), 0),
    shards,
  };
};

describe('api_requests meter and monthly quota', () => {
  it('counts each authenticated request in the UTC month and day', async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 3; i++) await call('GET', '/v1/self', { headers: { 'x-api-key': tenant.apiKey } });
    expect(await meterItem(tenant.companyId)).toMatchObject({ month: 3, day: 3 });
  });

  it('makes one write of one shard item under 1 KB per request, month and day together', async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 20; i++) await call('GET', '/v1/self', { headers: { 'x-api-key': tenant.apiKey } });
    const { month, day, shards } = await meterItem(tenant.companyId);
    expect({ month, day }).toEqual({ month: 20, day: 20 });
    expect(shards.length).toBeGreaterThan(1);
    expect(shards.length).toBeLessThanOrEqual(API_REQUEST_SHARDS);
    for (const shard of shards) {
      expect(shard.entity).toBe('usage_shard');
      expect(JSON.stringify(shard).length).toBeLessThan(1024);
    }
    // GET /v1/usage sums the shards (itself included: it is metered before it reads).
    const usage = await call('GET', '/v1/usage', { headers: { 'x-api-key': tenant.apiKey } });
    expect((usage.json.usage as { meters: Record<string, number> }).meters.api_requests).toBe(21);
    const today = await call('GET', '/v1/usage?granularity=day', { headers: { 'x-api-key': tenant.apiKey } });
    expect((today.json.usage as { meters: Record<string, number> }).meters.api_requests).toBe(22);
  });

  it('ends exactly at a quota of 500 under 600 concurrent requests, refusing every further one with 429', async () => {
    const tenant = await createTenant({ limits: { apiRequestsPerMonth: 500 } });
    const headers = { 'x-api-key': tenant.apiKey };
    const statuses = await Promise.all(
      Array.from({ length: 600 }, async () => (await call('GET', '/v1/self', { headers })).status),
    );
    const tally = (status: number) => statuses.filter((s) => s === status).length;
    expect({ ok: tally(200), refused: tally(429), total: statuses.length }).toEqual({
      ok: 500,
      refused: 100,
      total: 600,
    });
    const stored = await meterItem(tenant.companyId);
    expect({ month: stored.month, day: stored.day }).toEqual({ month: 500, day: 500 });
    // Every shard took exactly its allotment.
    expect(stored.shards.map((shard) => shard.api_requests)).toEqual(
      Array.from({ length: API_REQUEST_SHARDS }, () => 500 / API_REQUEST_SHARDS),
    );
    for (let i = 0; i < 5; i++)
      expectProblem(await call('GET', '/v1/self', { headers }), 429, 'quota_exceeded');
    expect((await meterItem(tenant.companyId)).month).toBe(500);
    // What GET /v1/usage reports (it is refused itself now: its snapshot, read the same way).
    const snapshot = await getUsageSnapshot(tenant.companyId, 'month', new Date());
    expect(snapshot.meters.api_requests).toBe(500);
    expect((await getUsageSnapshot(tenant.companyId, 'day', new Date())).meters.api_requests).toBe(500);
  }, 120_000);

  it('spreads an amount no shard can take whole, and refuses only what passes the month', async () => {
    const tenant = await createTenant();
    const now = new Date(Date.UTC(2031, 2, 7, 12));
    for (let i = 0; i < 20; i++) await meters.addToMeter(tenant.companyId, 'api_requests', 1, now, 25);
    // No shard's allotment (2 or 3) takes 4, the month has 5 left.
    await meters.addToMeter(tenant.companyId, 'api_requests', 4, now, 25);
    await expect(meters.addToMeter(tenant.companyId, 'api_requests', 2, now, 25)).rejects.toThrow(
      meters.MeterLimitReachedError,
    );
    await meters.addToMeter(tenant.companyId, 'api_requests', 1, now, 25);
    await expect(meters.addToMeter(tenant.companyId, 'api_requests', 1, now, 25)).rejects.toThrow(
      meters.MeterLimitReachedError,
    );
    expect((await meters.readUsage(tenant.companyId, now, 'month')).meters.api_requests).toBe(25);
    expect((await meters.readUsage(tenant.companyId, now, 'day')).meters.api_requests).toBe(25);
    // The series (GET /v1/usage/history, get_usage_history) sums the shards too, by month and by day.
    await meters.addToMeter(tenant.companyId, 'api_requests', 3, new Date(Date.UTC(2031, 2, 9, 1)));
    const days = await meters.readUsageSeries(tenant.companyId, 'day', '2031-03-06', '2031-03-08');
    expect([...days].map(([day, figures]) => [day, figures.meters.api_requests])).toEqual([
      ['2031-03-07', 25],
    ]);
    const months = await meters.readUsageSeries(tenant.companyId, 'month', '2031-02', '2031-04');
    expect([...months].map(([month, figures]) => [month, figures.meters.api_requests])).toEqual([
      ['2031-03', 28],
    ]);
  });

  it('counts what the month and day items held before the shards, in the figures and against the quota', async () => {
    const tenant = await createTenant({ limits: { apiRequestsPerMonth: 10 } });
    const now = new Date();
    for (const Key of [
      usageMonthKey(tenant.companyId, utcMonth(now)),
      usageDayKey(tenant.companyId, utcDate(now)),
    ])
      await ddb.send(new PutCommand({ TableName: tableName(), Item: { ...Key, api_requests: 7 } }));
    const headers = { 'x-api-key': tenant.apiKey };
    const usage = await call('GET', '/v1/usage?granularity=day', { headers });
    expect((usage.json.usage as { meters: Record<string, number> }).meters.api_requests).toBe(8);
    expect((await call('GET', '/v1/self', { headers })).status).toBe(200);
    expect((await call('GET', '/v1/self', { headers })).status).toBe(200);
    expectProblem(await call('GET', '/v1/self', { headers }), 429, 'quota_exceeded');
    expect(await meterItem(tenant.companyId)).toMatchObject({ month: 10, day: 10 });
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
    expect(await meterItem(tenant.companyId)).toMatchObject({ month: 0, day: 0 });
  });

  it('counts requests of every auth header against the same meter', async () => {
    const tenant = await createTenant();
    await call('GET', '/v1/self', { headers: { 'x-api-key': tenant.apiKey } });
    await call('GET', '/v1/self', { headers: { 'x-auth-token': tenant.apiKey } });
    expect((await meterItem(tenant.companyId)).month).toBe(2);
  });
});
