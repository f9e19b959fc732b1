import { describe, expect, it } from 'vitest';
import { floorOf, floorTotal } from '../bench/cost-floor';
import { type MeasuredOperation, ZERO_USAGE } from '../bench/cost-model';
import { PRICES } from '../bench/prices';

const measured = (name: string, usage: Partial<MeasuredOperation['usage']> = {}): MeasuredOperation => ({
  name,
  indexWriteUnits: 0,
  meterWriteUnits: 0,
  usage: {
    ...ZERO_USAGE,
    apiRequests: 1,
    invocations: [{ fn: 'PublicApiV1/Group-company/Function', ms: 100 }],
    ...usage,
  },
});

const noFloor = { components: [], target: 0 };

describe('the floor of an operation', () => {
  it('of an API read is the gateway, WAF, one Lambda for its measured time, one meter and one audit write', () => {
    const floor = floorOf(measured('GET /v1/self (metered read)'), () => 1024);
    const expected =
      (PRICES.apiGatewayRestPerMillionRequests +
        PRICES.wafPerMillionRequests +
        PRICES.lambdaPerMillionRequests +
        2 * PRICES.dynamodbPerMillionWriteUnits) /
        1_000_000 +
      0.1 * PRICES.lambdaArmPerGbSecond;
    // Plus the access-log line.
    expect(floorTotal(floor ?? { components: [], target: 0 })).toBeGreaterThan(expected);
    expect(floorTotal(floor ?? { components: [], target: 0 })).toBeLessThan(expected + 1e-6);
    expect(floor?.target).toBe(1.3);
  });

  it.each([
    ['speech job, 12,000 characters', 24_000, 2],
    ['speech job, 12,000 characters, no timings', 12_000, 1],
  ])(
    'of %s is one Polly task over its text, whatever the tasks it ran, and the job it is',
    (name, pollyCharacters, pollyTasks) => {
      const floor = floorOf(measured(name, { pollyCharacters, pollyTasks }), () => 512);
      expect(floor?.components[0]?.usd).toBeCloseTo(
        (12_000 * PRICES.pollyStandardPerMillionCharacters) / 1_000_000,
        12,
      );
      const api = floorTotal(floorOf(measured('GET /v1/self (metered read)'), () => 512) ?? noFloor);
      // The request, six one-unit writes (record, queue place, status, usage, event, the file's record), a PUT.
      expect(floorTotal(floor ?? noFloor) - (floor?.components[0]?.usd ?? 0)).toBeCloseTo(
        api + (6 * PRICES.dynamodbPerMillionWriteUnits) / 1_000_000 + PRICES.s3PerThousandPuts / 1000,
        12,
      );
      expect(floor?.target).toBe(1.5);
    },
  );

  it('of a speech request that tells no task count is one Polly call a run, its file and its usage', () => {
    const floor = floorOf(
      measured('speech, 1,000 characters', { pollyCharacters: 2000, runs: 2 }),
      () => 512,
    );
    expect(floor?.components[0]?.usd).toBeCloseTo(
      (1000 * PRICES.pollyStandardPerMillionCharacters) / 1_000_000,
      12,
    );
    expect(floor?.components.map((c) => c.what)).not.toContain('the job record (1 WRU)');
  });

  it.each([
    'GET /v1/self (metered read)',
    'message sent and delivered',
    'webhook delivery',
    'workflow run, 3 steps, async',
  ])("of %s logs the access-log line at most, none of a function's platform lines", (name) => {
    const logBytes = (floorOf(measured(name), () => 512)?.components ?? [])
      .map((c) => /^(\d+) bytes of logs$/.exec(c.what)?.[1])
      .reduce((sum, bytes) => sum + Number(bytes ?? 0), 0);
    expect(logBytes).toBe(name.startsWith('webhook') ? 0 : 400);
  });

  const writesOf = (name: string) =>
    (floorOf(measured(name), () => 512)?.components ?? [])
      .map((c) => /\(([\d.]+) WRU\)/.exec(c.what)?.[1])
      .reduce((sum, units) => sum + Number(units ?? 0), 0);

  it.each([
    // meter, audit; the item, its event; the type's bytes a hundredth of a write.
    ['Dynadata create (contacts)', 4.01],
    // ... and the entry of the field the bench's custom type indexes.
    ['Dynadata create (custom type, 3 KB schema)', 5.01],
    // meter, audit; the message, its thread entry, its status, its event; the bytes.
    ['message sent and delivered', 6.01],
    // meter, audit; the run at its start and finished, its allowance, its list entry, its event; the time.
    ['workflow run, 3 steps, sync', 7.01],
    // ... queued, the same promises, each of 3 steps started once, the final status.
    ['workflow run, 3 steps, async', 10.01],
    ['workflow run, 5 steps, async', 12.01],
  ])('of %s writes %d units, one per promise', (name, units) => {
    expect(writesOf(name)).toBeCloseTo(units, 9);
  });
});
