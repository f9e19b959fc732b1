import { describe, expect, it } from 'vitest';
import { apiGatewayUsageKeys } from '../../functions/shared/aws/usage-plan-keys';
import { FakeApiGateway } from '../fixtures/fake-api-gateway';

const setup = () => {
  const gateway = new FakeApiGateway();
  const ids = {
    free: gateway.addUsagePlan('api1', 'free'),
    other: gateway.addUsagePlan('api2', 'free'),
    untagged: gateway.addUsagePlan('api1', undefined),
    starter: gateway.addUsagePlan('api1', 'starter'),
    default: gateway.addUsagePlan('api1', 'default'),
  };
  return { gateway, ids, store: apiGatewayUsageKeys('api1', gateway) };
};

describe('usage keys in API Gateway', () => {
  it('finds the usage plans of its API by their plan tag, across pages', async () => {
    const { store, ids } = setup();
    expect(await store.usagePlansByPlan()).toEqual({
      free: ids.free,
      starter: ids.starter,
      default: ids.default,
    });
  });

  it('finds a key by its exact name with its value, across pages', async () => {
    const { store } = setup();
    await store.createKey('company-co_1x', 'a'.repeat(40), 'd');
    await store.createKey('company-co_1y', 'b'.repeat(40), 'd');
    const key = await store.createKey('company-co_1', 'c'.repeat(40), 'd');
    expect(await store.findKey('company-co_1')).toEqual(key);
    expect(await store.findKey('company-co_2')).toBeUndefined();
  });

  it('adds and removes a key idempotently and lists only its API usage plans', async () => {
    const { store, ids, gateway } = setup();
    const key = await store.createKey('company-co_1', 'c'.repeat(40), 'd');
    await store.addKey(ids.free, key.id);
    await store.addKey(ids.free, key.id);
    await store.addKey(ids.other, key.id);
    expect(await store.usagePlansOfKey(key.id)).toEqual([ids.free]);
    await store.removeKey(ids.free, key.id);
    await store.removeKey(ids.free, key.id);
    expect(gateway.planOfKey(key.id)).toEqual([ids.other]);
  });
});
