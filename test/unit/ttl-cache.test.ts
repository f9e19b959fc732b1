import { describe, expect, it } from 'vitest';
import { credentialCacheKey } from '../../functions/authorizer/decision-cache';
import { cachedOrLoad, createTtlCache } from '../../functions/shared/ttl-cache';

describe('TTL cache', () => {
  it('returns a decision until its TTL passes', () => {
    const cache = createTtlCache<string>(1000);
    cache.set('k', 'allow', 0);
    expect(cache.get('k', 999)).toBe('allow');
    expect(cache.get('k', 1000)).toBeUndefined();
  });

  it('evicts the least recently used entry beyond its bound', () => {
    const cache = createTtlCache<number>(10_000, 2);
    cache.set('a', 1, 0);
    cache.set('b', 2, 0);
    cache.get('a', 1);
    cache.set('c', 3, 2);
    expect(cache.size()).toBe(2);
    expect(cache.get('b', 3)).toBeUndefined();
    expect(cache.get('a', 3)).toBe(1);
  });

  it('loads a missing or expired entry once and does not cache an absent value', async () => {
    const cache = createTtlCache<string>(1000);
    let loads = 0;
    const load = async () => {
      loads++;
      return loads === 1 ? undefined : `v${loads}`;
    };
    expect(await cachedOrLoad(cache, 'k', 0, load)).toBeUndefined();
    expect(await cachedOrLoad(cache, 'k', 1, load)).toBe('v2');
    expect(await cachedOrLoad(cache, 'k', 999, load)).toBe('v2');
    expect(await cachedOrLoad(cache, 'k', 1001, load)).toBe('v3');
    expect(loads).toBe(3);
  });

  it('keys authorizer decisions by a hash that never contains the credential', () => {
    const key = credentialCacheKey('api_key', 'sk-secret-value');
    expect(key).not.toContain('secret');
    expect(key).not.toBe(credentialCacheKey('api_key', 'sk-secret-valuf'));
  });
});
