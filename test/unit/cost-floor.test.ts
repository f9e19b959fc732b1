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
    // Plus the access-log and platform lines.
    expect(floorTotal(floor ?? { components: [], target: 0 })).toBeGreaterThan(expected);
    expect(floorTotal(floor ?? { components: [], target: 0 })).toBeLessThan(expected + 1e-6);
    expect(floor?.target).toBe(1.3);
  });

  it.each([
    ['speech job, 12,000 characters', 24_000, 2],
    ['speech job, 12,000 characters, no timings', 12_000, 1],
  ])(
    'of %s is one Polly task over its text, whatever the tasks it ran',
    (name, pollyCharacters, pollyTasks) => {
      const floor = floorOf(measured(name, { pollyCharacters, pollyTasks }), () => 512);
      expect(floorTotal(floor ?? { components: [], target: 0 })).toBeCloseTo(
        (12_000 * PRICES.pollyStandardPerMillionCharacters) / 1_000_000,
        12,
      );
      expect(floor?.target).toBe(1.5);
    },
  );

  it('of a speech request that tells no task count is one Polly call a run', () => {
    const floor = floorOf(
      measured('speech, 1,000 characters', { pollyCharacters: 2000, runs: 2 }),
      () => 512,
    );
    expect(floorTotal(floor ?? { components: [], target: 0 })).toBeCloseTo(
      (1000 * PRICES.pollyStandardPerMillionCharacters) / 1_000_000,
      12,
    );
  });
});
