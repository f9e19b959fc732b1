import { describe, expect, it } from 'vitest';
import { decodeScopeSet, encodeScopeSet, SCOPES } from '../../functions/shared/types/scopes';

describe('a stored scope set', () => {
  it('gives every scope a bit of its own', () => {
    const bits = SCOPES.map((scope) => encodeScopeSet([scope]));
    expect(new Set(bits).size).toBe(SCOPES.length);
    for (const bit of bits) expect(Math.log2(bit) % 1).toBe(0);
  });

  it('keeps the bits once given (a set stored earlier reads the same)', () => {
    expect(encodeScopeSet(['company:read'])).toBe(1);
    expect(encodeScopeSet(['keys:admin'])).toBe(2 ** 22);
    expect(encodeScopeSet(['messages:report'])).toBe(2 ** 23);
  });

  it('reads back the scopes it was given, once each and in catalogue order', () => {
    const all = encodeScopeSet([...SCOPES]);
    expect(decodeScopeSet(all)).toEqual([...SCOPES]);
    expect(String(all).length).toBeLessThan(10);
    expect(
      decodeScopeSet(encodeScopeSet(['workflows:run', 'company:read', 'workflows:run', 'nope'])),
    ).toEqual(['company:read', 'workflows:run']);
    expect(decodeScopeSet(0)).toEqual([]);
  });
});
