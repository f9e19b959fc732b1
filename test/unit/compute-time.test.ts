import { describe, expect, it } from 'vitest';
import { engineRunMs } from '../../functions/shared/domain/compute-time';

describe("an engine's run time", () => {
  it('reads epoch seconds, as the engines answer on the wire', () => {
    expect(engineRunMs(1_772_600_000, 1_772_600_061.5)).toBe(61_500);
  });

  it('reads ISO 8601 strings', () => {
    expect(engineRunMs('2026-03-04T05:00:00Z', '2026-03-04T05:01:00.250Z')).toBe(60_250);
  });

  it.each([
    [undefined, 1_772_600_001],
    [1_772_600_000, undefined],
    ['not a time', '2026-03-04T05:00:00Z'],
    [1_772_600_010, 1_772_600_000],
  ])('bills nothing for %j to %j', (start, finish) => {
    expect(engineRunMs(start, finish)).toBe(0);
  });
});
