import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  NotFoundException,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import { env } from '../env';
import { USAGE_PLAN_TAG } from '../types/plans';

export interface UsageKey {
  id: string;
  value: string;
}

/** The API Gateway calls that place a company's usage key in a usage plan of one REST API. */
export interface UsageKeyStore {
  /** The usage plans of the API, by the plan id in their `USAGE_PLAN_TAG`. */
  usagePlansByPlan(): Promise<Record<string, string>>;
  findKey(name: string): Promise<UsageKey | undefined>;
  createKey(name: string, value: string, description: string): Promise<UsageKey>;
  /** The usage plans of the API that hold the key. */
  usagePlansOfKey(keyId: string): Promise<string[]>;
  /** Both are idempotent: adding a key already there or removing one that is not succeeds. */
  addKey(usagePlanId: string, keyId: string): Promise<void>;
  removeKey(usagePlanId: string, keyId: string): Promise<void>;
}

type Sender = Pick<APIGatewayClient, 'send'>;

const ofApi = (plan: UsagePlan, restApiId: string): boolean =>
  (plan.apiStages ?? []).some((stage) => stage.apiId === restApiId);

const allUsagePlans = async (client: Sender, keyId?: string): Promise<UsagePlan[]> => {
  const plans: UsagePlan[] = [];
  let position: string | undefined;
  do {
    const page = await client.send(new GetUsagePlansCommand({ keyId, position, limit: 500 }));
    plans.push(...(page.items ?? []));
    position = page.position;
  } while (position);
  return plans;
};

/** The store of one REST API (the API stack's `RestApiId` output); the operator's credentials sign the calls. */
export const apiGatewayUsageKeys = (
  restApiId: string,
  client: Sender = new APIGatewayClient({ region: env().region }),
): UsageKeyStore => ({
  usagePlansByPlan: async () => {
    const byPlan: Record<string, string> = {};
    for (const plan of await allUsagePlans(client)) {
      const planId = plan.tags?.[USAGE_PLAN_TAG];
      if (planId && plan.id && ofApi(plan, restApiId)) byPlan[planId] = plan.id;
    }
    return byPlan;
  },
  findKey: async (name) => {
    let position: string | undefined;
    do {
      const page = await client.send(
        new GetApiKeysCommand({ nameQuery: name, includeValues: true, position, limit: 500 }),
      );
      const key = page.items?.find((k) => k.name === name);
      if (key?.id && key.value) return { id: key.id, value: key.value };
      position = page.position;
    } while (position);
    return undefined;
  },
  createKey: async (name, value, description) => {
    const key = await client.send(new CreateApiKeyCommand({ name, value, description, enabled: true }));
    if (!key.id) throw new Error(`API Gateway returned no id for the key ${name}`);
    return { id: key.id, value };
  },
  usagePlansOfKey: async (keyId) =>
    (await allUsagePlans(client, keyId))
      .filter((plan) => ofApi(plan, restApiId))
      .flatMap((plan) => (plan.id ? [plan.id] : [])),
  addKey: async (usagePlanId, keyId) => {
    try {
      await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId, keyType: 'API_KEY' }));
    } catch (error) {
      if (!(error instanceof ConflictException)) throw error;
    }
  },
  removeKey: async (usagePlanId, keyId) => {
    try {
      await client.send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId }));
    } catch (error) {
      if (!(error instanceof NotFoundException)) throw error;
    }
  },
});
