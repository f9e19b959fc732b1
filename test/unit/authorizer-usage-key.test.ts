import { describe, expect, it, vi } from 'vitest';

// On AWS the authorizer names the company's own usage key, or its plan's shared key when it has none.
vi.hoisted(() => {
  process.env.USAGE_PLAN_KEYS = JSON.stringify({ free: 'plan-free-key', default: 'plan-default-key' });
});

const companies: Record<string, unknown> = {
  co_keyed: {
    companyId: 'co_keyed',
    planId: 'free',
    status: 'active',
    rateKey: { id: 'k1', value: 'company-key-1' },
  },
  co_plain: { companyId: 'co_plain', planId: 'free', status: 'active' },
  co_later: { companyId: 'co_later', planId: 'later', status: 'active' },
};
vi.mock('../../functions/authorizer/authenticate', () => ({
  authenticate: async (credential: { value: string }) => ({
    ok: true,
    auth: { companyId: credential.value.slice(3), authMethod: 'api_key', keyId: 'key_1', scopes: [] },
  }),
}));
vi.mock('../../functions/shared/data/companies', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/companies')>()),
  getCompany: async (companyId: string) => companies[companyId],
}));
vi.mock('../../functions/shared/data/plans', async (original) => {
  const { DEFAULT_PLANS } = await import('../../functions/shared/domain/plan-catalog');
  const free = DEFAULT_PLANS.find((p) => p.id === 'free');
  return {
    ...(await original<typeof import('../../functions/shared/data/plans')>()),
    getPlan: async (planId: string) => (free ? { ...free, id: planId } : undefined),
  };
});

const { handler } = await import('../../functions/authorizer/index');

const authorize = (companyId: string) =>
  handler(
    {
      type: 'REQUEST',
      resource: '/v1/self',
      methodArn: 'arn:aws:execute-api:local:0:api/v1/GET/self',
      headers: { 'x-api-key': `sk-${companyId}` },
      requestContext: { requestId: 'r', identity: { sourceIp: '192.0.2.1' } },
    } as never,
    {} as never,
  );

describe('usage identifier of the authorizer', () => {
  it("returns the company's own key, and never passes it to the routes", async () => {
    const result = await authorize('co_keyed');
    expect(result.usageIdentifierKey).toBe('company-key-1');
    expect(JSON.stringify(result.context)).not.toContain('company-key-1');
  });

  it("falls back to the plan's key, then to default, for a company without a key", async () => {
    expect((await authorize('co_plain')).usageIdentifierKey).toBe('plan-free-key');
    expect((await authorize('co_later')).usageIdentifierKey).toBe('plan-default-key');
  });
});
