import { describe, expect, it } from 'vitest';
import { subscriptionPeriod } from '../../functions/shared/domain/subscription';

const period = (anchor: string, now: string) => {
  const p = subscriptionPeriod(anchor, new Date(now));
  return [p.start.toISOString(), p.end.toISOString()];
};

describe('subscriptionPeriod', () => {
  it('is the first month right after the anchor', () => {
    expect(period('2026-01-15T10:00:00.000Z', '2026-01-20T00:00:00.000Z')).toEqual([
      '2026-01-15T10:00:00.000Z',
      '2026-02-15T10:00:00.000Z',
    ]);
  });

  it('rolls forward month by month', () => {
    expect(period('2026-01-15T10:00:00.000Z', '2026-11-15T09:59:59.000Z')).toEqual([
      '2026-10-15T10:00:00.000Z',
      '2026-11-15T10:00:00.000Z',
    ]);
  });

  it('clamps an anchor on the 31st to the last day of shorter months', () => {
    expect(period('2026-01-31T00:00:00.000Z', '2026-02-28T12:00:00.000Z')).toEqual([
      '2026-02-28T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
    ]);
  });

  it('crosses years', () => {
    expect(period('2025-12-05T00:00:00.000Z', '2026-01-04T23:00:00.000Z')).toEqual([
      '2025-12-05T00:00:00.000Z',
      '2026-01-05T00:00:00.000Z',
    ]);
  });
});
