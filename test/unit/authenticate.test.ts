import { describe, expect, it, vi } from 'vitest';

// Structurally invalid credentials must be refused before any database request: the data module is
// replaced by a spy that fails the test if it is reached.
const findApiKeyBySecret = vi.fn(async () => {
  throw new Error('database must not be reached');
});
vi.mock('../../functions/shared/data/api-keys', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/api-keys')>()),
  findApiKeyBySecret,
}));

const { authenticate } = await import('../../functions/authorizer/authenticate');

describe('authenticate', () => {
  it.each(['sk-short', `sk-${'a'.repeat(44)}`, `sk-${'!'.repeat(43)}`, `sk-${'é'.repeat(43)}`])(
    'refuses the malformed key %j without a database request',
    async (value) => {
      expect(await authenticate({ header: 'x-api-key', kind: 'api_key', value }, '127.0.0.1')).toEqual({
        ok: false,
        reason: 'malformed',
      });
      expect(findApiKeyBySecret).not.toHaveBeenCalled();
    },
  );

  it('refuses a missing or oversized credential', async () => {
    expect(await authenticate(undefined, '127.0.0.1')).toEqual({ ok: false, reason: 'missing' });
    expect(
      await authenticate({ header: 'x-api-key', kind: 'api_key', value: 'x'.repeat(5000) }, '127.0.0.1'),
    ).toEqual({
      ok: false,
      reason: 'oversized',
    });
  });
});
