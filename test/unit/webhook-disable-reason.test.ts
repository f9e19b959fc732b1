import { describe, expect, it } from 'vitest';
import { spokenDuration } from '../../functions/shared/domain/events/delivery';

describe('the duration a disable reason states', () => {
  it('is in seconds or minutes under an hour and in hours from there', () => {
    expect(spokenDuration(8_400)).toBe('8 s');
    expect(spokenDuration(119_000)).toBe('119 s');
    expect(spokenDuration(125_000)).toBe('2 min');
    expect(spokenDuration(3_599_000)).toBe('59 min');
    expect(spokenDuration(3 * 3_600_000)).toBe('3 h');
    expect(spokenDuration(5_400_000)).toBe('1.5 h');
    expect(spokenDuration(72 * 3_600_000)).toBe('72 h');
  });
});
