import { describe, expect, it } from 'vitest';
import { FakeApiGateway } from '../fixtures/fake-api-gateway';
import { call, createTenant, runAdmin } from './support';

// The company profiles are real (the local stack's DynamoDB); API Gateway is not part of the local stack,
// so its usage plans and keys are an in-memory stand-in behind the real SDK adapter.
const { apiGatewayUsageKeys } = await import('../../functions/shared/aws/usage-plan-keys');
const { changeCompanyPlan, createCompanyWithPlan } = await import(
  '../../functions/shared/domain/company-admin'
);
const { rateKeyName, syncCompanyRateKeys } = await import('../../functions/shared/domain/company-rate-keys');
const { getCompany } = await import('../../functions/shared/data/companies');

const edge = () => {
  const gateway = new FakeApiGateway();
  const usagePlans = {
    free: gateway.addUsagePlan('api1', 'free'),
    starter: gateway.addUsagePlan('api1', 'starter'),
    default: gateway.addUsagePlan('api1', 'default'),
  };
  gateway.addUsagePlan('api2', 'free');
  return { gateway, usagePlans, store: apiGatewayUsageKeys('api1', gateway) };
};

describe('a usage key per company at the edge', () => {
  it('creates the company with its own random key in the usage plan of its plan', async () => {
    const { gateway, usagePlans, store } = edge();
    const company = await createCompanyWithPlan({ name: 'Keyed', planId: 'free' }, new Date(), store);
    const stored = await getCompany(company.companyId);
    expect(stored?.rateKey?.value).toMatch(/^[0-9a-f]{48}$/);
    expect(gateway.keys.get(stored?.rateKey?.id ?? '')?.name).toBe(rateKeyName(company.companyId));
    expect(gateway.planOfKey(stored?.rateKey?.id ?? '')).toEqual([usagePlans.free]);
    const other = await createCompanyWithPlan({ name: 'Other', planId: 'free' }, new Date(), store);
    expect((await getCompany(other.companyId))?.rateKey?.value).not.toBe(stored?.rateKey?.value);
  });

  it('moves the key between usage plans when the plan changes, and to default for an unknown one', async () => {
    const { gateway, usagePlans, store } = edge();
    const { companyId } = await createCompanyWithPlan({ name: 'Mover', planId: 'free' }, new Date(), store);
    const keyId = (await getCompany(companyId))?.rateKey?.id ?? '';
    const moved = await changeCompanyPlan({ companyId, planId: 'starter' }, store);
    expect(moved.planId).toBe('starter');
    expect(moved.rateKeyPlacement).toMatchObject({
      created: false,
      removedFrom: [usagePlans.free],
      added: true,
    });
    expect(gateway.planOfKey(keyId)).toEqual([usagePlans.starter]);
    await changeCompanyPlan({ companyId, planId: 'legacy-pro' }, store);
    expect(gateway.planOfKey(keyId)).toEqual([usagePlans.default]);
    expect((await getCompany(companyId))?.rateKey?.id).toBe(keyId);
    await expect(changeCompanyPlan({ companyId, planId: 'no-such-plan' }, store)).rejects.toThrow(
      'Unknown plan',
    );
    await expect(changeCompanyPlan({ companyId: 'co_missing', planId: 'free' }, store)).rejects.toThrow(
      'no company co_missing',
    );
  });

  it('backfills keys for companies without one; a second run changes nothing', async () => {
    const { gateway, usagePlans, store } = edge();
    const { companyId } = await createTenant({ plan: 'starter' });
    expect((await getCompany(companyId))?.rateKey).toBeUndefined();
    const first = await syncCompanyRateKeys(store);
    const placed = first.find((p) => p.companyId === companyId);
    expect(placed).toMatchObject({ created: true, added: true, usagePlanId: usagePlans.starter });
    expect((await getCompany(companyId))?.rateKey?.id).toBe(placed?.keyId);
    const second = await syncCompanyRateKeys(store);
    const before = new Set(first.map((p) => p.companyId));
    const again = second.filter((p) => before.has(p.companyId));
    expect(again).toHaveLength(first.length);
    for (const p of again) expect(p).toMatchObject({ created: false, added: false, removedFrom: [] });
    expect(gateway.calls.filter((c) => c === 'CreateApiKeyCommand')).toHaveLength(first.length);
  });

  it('reuses a key created before its profile write failed, by its name', async () => {
    const { gateway, usagePlans, store } = edge();
    const { companyId } = await createTenant();
    const orphan = await store.createKey(rateKeyName(companyId), 'f'.repeat(48), 'left over');
    const company = await getCompany(companyId);
    if (!company) throw new Error('no company');
    const { placeCompanyRateKey } = await import('../../functions/shared/domain/company-rate-keys');
    const placement = await placeCompanyRateKey(company, store, await store.usagePlansByPlan());
    expect(placement).toMatchObject({ keyId: orphan.id, created: false, usagePlanId: usagePlans.free });
    expect((await getCompany(companyId))?.rateKey).toEqual(orphan);
    expect(gateway.keys.size).toBe(1);
  });

  it('changes plans from the CLI on the local stack, where no usage key is made', async () => {
    const { companyId, apiKey } = await createTenant();
    const moved = await runAdmin('companies', 'set-plan', '--company', companyId, '--plan', 'starter');
    expect(moved.code).toBe(0);
    expect(moved.out).toContain(`company ${companyId} is on plan starter; local stack`);
    expect((await getCompany(companyId))?.rateKey).toBeUndefined();
    expect((await runAdmin('companies', 'set-plan', '--company', companyId, '--plan', 'nope')).code).toBe(1);
    expect((await runAdmin('companies', 'set-plan', '--company', 'co_missing', '--plan', 'free')).code).toBe(
      1,
    );
    expect((await runAdmin('companies', 'sync-rate-keys')).code).toBe(2);
    const aws = await runAdmin(
      'companies',
      'set-plan',
      '--company',
      companyId,
      '--plan',
      'free',
      '--rest-api-id',
      'a1',
    );
    expect(aws.code).toBe(2);
    expect(aws.err).toContain('--rest-api-id applies to AWS targets only');
    const self = await call('GET', '/v1/self', { headers: { 'x-api-key': apiKey } });
    expect(self.status).toBe(200);
    expect(JSON.stringify(self.json)).not.toContain('rateKey');
  });
});
