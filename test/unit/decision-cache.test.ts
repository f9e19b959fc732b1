import { describe, expect, it } from 'vitest';
import { createDecisionCache, credentialCacheKey } from '../../functions/authorizer/decision-cache';

describe('authorizer decision cache', () => {
  it('returns a decision until its TTL passes', () => {
    const cache = createDecisionCache<string>(1000);
    cache.set('k', 'allow', 0);
    expect(cache.get('k', 999)).toBe('allow');
    expect(cache.get('k', 1000)).toBeUndefined();
  });

  it('evicts the least recently used entry beyond its bound', () => {
    const cache = createDecisionCache<number>(10_000, 2);
    cache.set('a', 1, 0);
    cache.set('b', 2, 0);
    cache.get('a', 1);
    cache.set('c', 3, 2);
    expect(cache.size()).toBe(2);
    expect(cache.get('b', 3)).toBeUndefined();
    expect(cache.get('a', 3)).toBe(1);
  });

  it('keys by a hash that never contains the credential', () => {
    const key = credentialCacheKey('api_key', 'sk-secret-value');
    expect(key).not.toContain('secret');
    expect(key).not.toBe(credentialCacheKey('api_key', 'sk-secret-valuf'));
  });
});
