import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';

/**
 * `GET`/`PUT /v1/usage/alerts`: the thresholds that raise `usage.threshold_reached`, per company and meter.
 * Usage is added through the meter's own writes; the events come from the stack's event dispatcher.
 */
type Event = { type: string; data: { meter: string; threshold: number; used: number } };

let tenant: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;
const headers = () => ({ 'x-api-key': tenant.apiKey });

const thresholdEvents = async (apiKey: string): Promise<Event[]> =>
  (
    await call('GET', '/v1/events?type=usage.threshold_reached&limit=100', {
      headers: { 'x-api-key': apiKey },
    })
  ).json.events as Event[];

const waitForEvent = async (apiKey: string, meter: string, threshold: number): Promise<Event[]> => {
  for (let i = 0; i < 150; i += 1) {
    const events = await thresholdEvents(apiKey);
    if (events.some((e) => e.data.meter === meter && e.data.threshold === threshold)) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no usage.threshold_reached for ${meter} at ${threshold} %`);
};

const add = async (companyId: string, meter: 'speech_characters' | 'transcode_seconds', amount: number) => {
  const { addToMeter } = await import('../../functions/shared/data/usage-meters');
  await addToMeter(companyId, meter, amount, new Date());
};

beforeAll(async () => {
  const limits = { speechCharactersPerMonth: 100, transcodeSecondsPerMonth: 100 };
  tenant = await createTenant({ limits });
  other = await createTenant({ limits });
});

describe('usage alert thresholds', () => {
  it('reads the defaults, replaces them, and raises the event at the company’s own percentage', async () => {
    const defaults = await call('GET', '/v1/usage/alerts', { headers: headers() });
    expect(defaults.status).toBe(200);
    expect(defaults.json.thresholds).toMatchObject({ speech_characters: [80, 100], api_requests: [80, 100] });
    const put = await call('PUT', '/v1/usage/alerts', {
      headers: headers(),
      body: { thresholds: { speech_characters: [30, 30, 10], transcode_seconds: [5] } },
    });
    expect(put.status).toBe(200);
    expect(put.json.thresholds).toMatchObject({
      speech_characters: [10, 30],
      transcode_seconds: [5],
      api_requests: [80, 100],
    });
    expect((await call('GET', '/v1/usage/alerts', { headers: headers() })).json).toEqual(put.json);

    await add(tenant.companyId, 'speech_characters', 40);
    const events = await waitForEvent(tenant.apiKey, 'speech_characters', 30);
    const speech = events.filter((e) => e.data.meter === 'speech_characters').map((e) => e.data.threshold);
    expect(speech.sort()).toEqual([10, 30]);

    // An empty list raises nothing: 90 % passes the default 80 and raises no event. The transcode threshold
    // crossed after it shows the dispatcher handled the speech change first (a company's changes go in order).
    await call('PUT', '/v1/usage/alerts', {
      headers: headers(),
      body: { thresholds: { speech_characters: [], transcode_seconds: [5] } },
    });
    await add(tenant.companyId, 'speech_characters', 50);
    await add(tenant.companyId, 'transcode_seconds', 10);
    const after = await waitForEvent(tenant.apiKey, 'transcode_seconds', 5);
    expect(
      after
        .filter((e) => e.data.meter === 'speech_characters')
        .map((e) => e.data.threshold)
        .sort(),
    ).toEqual([10, 30]);
  });

  it('keeps each company’s thresholds its own', async () => {
    await call('PUT', '/v1/usage/alerts', {
      headers: headers(),
      body: { thresholds: { transcode_seconds: [1] } },
    });
    const theirs = await call('GET', '/v1/usage/alerts', { headers: { 'x-api-key': other.apiKey } });
    expect(theirs.json.thresholds).toMatchObject({ transcode_seconds: [80, 100] });
    await add(other.companyId, 'transcode_seconds', 85);
    const events = await waitForEvent(other.apiKey, 'transcode_seconds', 80);
    expect(events.map((e) => e.data.threshold)).toEqual([80]);
  });

  it('raises api_requests thresholds on the month’s total over its shards, once each', async () => {
    const busy = await createTenant({ limits: { apiRequestsPerMonth: 2_000 } });
    const put = await call('PUT', '/v1/usage/alerts', {
      headers: { 'x-api-key': busy.apiKey },
      body: { thresholds: { api_requests: [30, 45] } },
    });
    expect(put.status).toBe(200);
    const { addToMeter } = await import('../../functions/shared/data/usage-meters');
    // 600 is more than any shard's allotment (200): it is spread over several shards, none of which reaches
    // 30 % of the allowance on its own.
    await addToMeter(busy.companyId, 'api_requests', 600, new Date(), 2_000);
    const first = await waitForEvent(busy.apiKey, 'api_requests', 30);
    const at30 = first.filter((e) => e.data.meter === 'api_requests');
    expect(at30.map((e) => e.data.threshold)).toEqual([30]);
    expect(at30[0]?.data.used).toBeGreaterThanOrEqual(600);
    await addToMeter(busy.companyId, 'api_requests', 300, new Date(), 2_000);
    const second = await waitForEvent(busy.apiKey, 'api_requests', 45);
    expect(
      second
        .filter((e) => e.data.meter === 'api_requests')
        .map((e) => e.data.threshold)
        .sort(),
    ).toEqual([30, 45]);
  });

  it('refuses thresholds it cannot keep, each at its pointer, and needs usage:write', async () => {
    const cases: [unknown, string][] = [
      [{ thresholds: { speech_characters: [0] } }, '/body/thresholds/speech_characters/0'],
      [{ thresholds: { speech_characters: [101] } }, '/body/thresholds/speech_characters/0'],
      [{ thresholds: { speech_characters: [1, 2, 3, 4, 5, 6] } }, '/body/thresholds/speech_characters'],
      [{ thresholds: { storage_bytes: [50] } }, '/body/thresholds/storage_bytes'],
      [{ thresholds: { speech_characters: [12.5] } }, '/body/thresholds/speech_characters/0'],
    ];
    for (const [body, pointer] of cases) {
      const res = await call('PUT', '/v1/usage/alerts', { headers: headers(), body });
      expectProblem(res, 400, 'validation_failed');
      expect(
        (res.json.errors as { pointer: string }[]).map((e) => e.pointer),
        JSON.stringify(body),
      ).toContain(pointer);
    }
    const reader = await createTenant({ scopes: ['usage:read'] });
    expectProblem(
      await call('PUT', '/v1/usage/alerts', {
        headers: { 'x-api-key': reader.apiKey },
        body: { thresholds: {} },
      }),
      403,
      'insufficient_scope',
    );
    expect((await call('GET', '/v1/usage/alerts', { headers: { 'x-api-key': reader.apiKey } })).status).toBe(
      200,
    );
  });
});
