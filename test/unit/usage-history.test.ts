import { describe, expect, it } from 'vitest';
import { periodsOf } from '../../functions/shared/domain/usage-history';
import { ValidationError } from '../../functions/shared/errors';

const pointersOf = (run: () => unknown) => {
  try {
    run();
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return (error.errors ?? []).map((e) => e.pointer);
  }
};

describe('the periods of a usage series', () => {
  it('walks days and months in UTC, across month and year ends and leap days', () => {
    const days = periodsOf({ granularity: 'day', from: '2024-02-27', to: '2024-03-01' });
    expect(days.map((d) => d.toISOString().slice(0, 10))).toEqual([
      '2024-02-27',
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
    const months = periodsOf({ granularity: 'month', from: '2025-11', to: '2026-02' });
    expect(months.map((d) => d.toISOString().slice(0, 7))).toEqual([
      '2025-11',
      '2025-12',
      '2026-01',
      '2026-02',
    ]);
  });

  it('bounds the work: 366 days or 36 months, and stops counting at the bound', () => {
    expect(periodsOf({ granularity: 'day', from: '2024-01-01', to: '2024-12-31' })).toHaveLength(366);
    expect(periodsOf({ granularity: 'month', from: '2023-01', to: '2025-12' })).toHaveLength(36);
    expect(pointersOf(() => periodsOf({ granularity: 'day', from: '1000-01-01', to: '9999-12-31' }))).toEqual(
      ['/query/to'],
    );
  });

  it('refuses dates that are not real, in the wrong shape, or out of order', () => {
    expect(pointersOf(() => periodsOf({ granularity: 'day', from: '2025-02-29', to: '2025-13-01' }))).toEqual(
      ['/query/from', '/query/to'],
    );
    expect(pointersOf(() => periodsOf({ granularity: 'month', from: '2025-03', to: '2025-02' }))).toEqual([
      '/query/to',
    ]);
    expect(pointersOf(() => periodsOf({ granularity: 'month', from: '2025-03-01', to: '2025-04' }))).toEqual([
      '/query/from',
    ]);
  });
});
