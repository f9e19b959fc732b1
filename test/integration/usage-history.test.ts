import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

/**
 * `GET /v1/usage/history`: the per-day and per-month figures the meters already keep, as a dense series.
 * Days are injected through the meter's own writes at chosen dates (the test's clock), so what is read back
 * is exactly what the request path writes.
 */
type Point = {
  period: string;
  start: string;
  end: string;
  meters: Record<string, number>;
  computeMs: Record<string, number>;
};

let tenant: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;
const history = (apiKey: string, query: string) =>
  call('GET', `/v1/usage/history?${query}`, { headers: { 'x-api-key': apiKey } });

beforeAll(async () => {
  tenant = await createTenant();
  other = await createTenant();
  const { addToMeter, addComputeMs } = await import('../../functions/shared/data/usage-meters');
  // 2025-10-01 … 2025-10-31: day d counts d speech characters; every third day also 10 ms of workflows.
  for (let day = 1; day <= 31; day += 1) {
    const at = new Date(Date.UTC(2025, 9, day, 12));
    await addToMeter(tenant.companyId, 'speech_characters', day, at);
    if (day % 3 === 0) await addComputeMs(tenant.companyId, 'workflows', 10, at);
  }
  await addToMeter(tenant.companyId, 'workflow_runs', 2, new Date(Date.UTC(2025, 10, 2, 8)));
  // Another company's usage on the same days never shows.
  await addToMeter(other.companyId, 'speech_characters', 1000, new Date(Date.UTC(2025, 9, 5, 12)));
});

describe('GET /v1/usage/history', () => {
  it('answers one point per day of a 31-day range, zeros included, oldest first', async () => {
    const res = await history(tenant.apiKey, 'from=2025-10-01&to=2025-10-31');
    expect(res.status).toBe(200);
    const points = res.json.points as Point[];
    expect(points).toHaveLength(31);
    expect(points.map((p) => p.meters.speech_characters)).toEqual(
      Array.from({ length: 31 }, (_, i) => i + 1),
    );
    expect(points[2]).toMatchObject({
      period: '2025-10-03',
      start: '2025-10-03T00:00:00.000Z',
      end: '2025-10-04T00:00:00.000Z',
      computeMs: { workflows: 10, api: 0 },
    });
    expect(points[3]?.computeMs.workflows).toBe(0);
    const wider = (await history(tenant.apiKey, 'from=2025-09-29&to=2025-11-03')).json.points as Point[];
    expect(wider.map((p) => p.period).slice(0, 3)).toEqual(['2025-09-29', '2025-09-30', '2025-10-01']);
    expect(wider[0]?.meters).toEqual({
      api_requests: 0,
      transcode_seconds: 0,
      transcription_seconds: 0,
      speech_characters: 0,
      workflow_runs: 0,
    });
    expect(wider.find((p) => p.period === '2025-11-02')?.meters.workflow_runs).toBe(2);
  });

  it('answers months with the month items', async () => {
    const res = await history(tenant.apiKey, 'granularity=month&from=2025-09&to=2025-11');
    expect(res.status).toBe(200);
    const points = res.json.points as Point[];
    expect(points.map((p) => [p.period, p.meters.speech_characters, p.meters.workflow_runs])).toEqual([
      ['2025-09', 0, 0],
      ['2025-10', 496, 0],
      ['2025-11', 0, 2],
    ]);
    expect(points[1]?.computeMs.workflows).toBe(100);
    expect(points[1]?.end).toBe('2025-11-01T00:00:00.000Z');
  });

  it("never shows another company's usage", async () => {
    const mine = (await history(other.apiKey, 'from=2025-10-05&to=2025-10-05')).json.points as Point[];
    expect(mine[0]?.meters.speech_characters).toBe(1000);
    const theirs = (await history(tenant.apiKey, 'from=2025-10-05&to=2025-10-05')).json.points as Point[];
    expect(theirs[0]?.meters.speech_characters).toBe(5);
  });

  it('refuses a range it cannot answer, each problem at its pointer', async () => {
    const cases: [string, string[]][] = [
      ['from=2025-10-05&to=2025-10-04', ['/query/to']],
      ['from=2025-02-30&to=2025-03-01', ['/query/from']],
      ['from=2025-10&to=2025-10-31', ['/query/from']],
      ['granularity=month&from=2025-10-01&to=2025-11', ['/query/from']],
      ['from=2024-01-01&to=2025-01-01', ['/query/to']],
      ['granularity=month&from=2022-01&to=2025-01', ['/query/to']],
      ['from=2025-10-01', ['/query/to']],
      ['granularity=week&from=2025-10-01&to=2025-10-02', ['/query/granularity']],
    ];
    for (const [query, pointers] of cases) {
      const res = await history(tenant.apiKey, query);
      expectProblem(res, 400, 'validation_failed');
      const errors = res.json.errors as { pointer: string }[];
      expect(
        errors.map((e) => e.pointer),
        query,
      ).toEqual(pointers);
    }
    // 366 days is the most one call answers.
    expect((await history(tenant.apiKey, 'from=2024-01-01&to=2024-12-31')).status).toBe(200);
  });

  it('needs usage:read', async () => {
    const narrow = await createTenant({ scopes: ['company:read'] });
    expectProblem(await history(narrow.apiKey, 'from=2025-10-01&to=2025-10-02'), 403, 'insufficient_scope');
  });
});
