import { describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, apiKeyKey, apiKeyListKey, hashApiKey } from '../../functions/shared/data/api-keys';
import { companyKey } from '../../functions/shared/data/companies';
import { planKey } from '../../functions/shared/data/plans';
import { ulid } from '../../functions/shared/ids';

describe('key builders', () => {
  it('put tenant data under the company partition and global entities apart', () => {
    expect(companyKey('co_1')).toEqual({ pk: 'CO#co_1', sk: 'PROFILE' });
    expect(planKey('free')).toEqual({ pk: 'PLAN', sk: 'free' });
    expect(apiKeyKey('abc')).toEqual({ pk: 'APIKEY#abc', sk: 'APIKEY' });
    expect(apiKeyListKey('co_1', '2026-01-01T00:00:00.000Z', 'key_1')).toEqual({
      gsi1pk: 'CO#co_1#APIKEYS',
      gsi1sk: '2026-01-01T00:00:00.000Z#key_1',
    });
  });

  it('stores API keys by SHA-256 only', () => {
    expect(hashApiKey('sk-x')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('sk-x')).not.toContain('sk-x');
    expect(API_KEY_PATTERN.test(`sk-${'a'.repeat(43)}`)).toBe(true);
    expect(API_KEY_PATTERN.test('sk-short')).toBe(false);
  });

  it('makes ids that sort by creation time', () => {
    const a = ulid(1_700_000_000_000);
    const b = ulid(1_700_000_000_001);
    expect(a).toHaveLength(26);
    expect(a < b).toBe(true);
  });
});
