import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { lazy } from '../lazy';
import { type Plan, type PlanLimits, RATE_OF_PLANS_WITHOUT_ONE } from '../types/plans';
import * as zm from '../zod-mini';
import type { BatchEntry } from './batch';
import { ddb, queryAll, tableName } from './client';
import { decodeItem, defineEntity } from './entity';
import { partitions } from './keys';
import { PLAN_LIMIT_NAMES, partialPlanLimits } from './schemas';

/** Plans are global (not per tenant): one partition holds the whole catalog, which is small. */
export const planKey = (planId: string) => ({ pk: partitions.plans(), sk: planId });

/**
 * Plans are validated against `planSchema` when written (`admin plans put`, the seed) and again by the public
 * catalog route on the way out. The entity schema here is `zod/mini` (`../zod-mini.ts`), which keeps the
 * authorizer's bundle small.
 */
const planFields = () => ({
  id: zm.string(),
  name: zm.string(),
  description: zm.string(),
  sellable: zm.boolean(),
  price: zm.object({ amount: zm.number(), currency: zm.string(), interval: zm.enum(['month', 'year']) }),
});

/** A plan as stored: limits added after it was written may be absent (`toPlan` fills them in). */
export const StoredPlan = /* @__PURE__ */ defineEntity({
  name: 'plan',
  key: (planId: string) => planKey(planId),
  get schema() {
    return zm.object({ ...planFields(), limits: partialPlanLimits() });
  },
});

/** A plan with every limit. */
const planSchema = /* @__PURE__ */ lazy(
  () =>
    zm.object({
      ...planFields(),
      limits: zm.object(
        Object.fromEntries(PLAN_LIMIT_NAMES.map((name) => [name, zm.number()])) as Record<
          keyof PlanLimits,
          zm.ZodMiniNumber
        >,
      ),
    }) satisfies zm.ZodMiniType<Plan>,
);

/**
 * Limits added after plans were first stored, each with the limit a plan stored before it reads instead (a
 * transcription source is capped like a transcode source until the operator sets its own figure).
 */
const LIMITS_ADDED_LATER = {
  transcriptionQueueCap: 'transcodeQueueCap',
  transcriptionMaxSourceBytes: 'transcodeMaxSourceBytes',
  transcriptionMaxDurationSeconds: 'transcodeMaxDurationSeconds',
  speechJobQueueCap: 'transcodeQueueCap',
} as const satisfies Partial<Record<keyof PlanLimits, keyof PlanLimits>>;

/** Webhook endpoints of a plan stored before the limit existed. */
export const DEFAULT_WEBHOOK_ENDPOINTS = 10;
/** Workflows of a plan stored before the limit existed. */
export const DEFAULT_WORKFLOWS = 25;
/** Custom Dynadata types and fields per type of a plan stored before the limits existed. */
export const DEFAULT_DYNADATA_TYPES = 50;
export const DEFAULT_DYNADATA_FIELDS_PER_TYPE = 200;
/** The compute budget of a workflow run of a plan stored before the limit existed (the smallest plan's). */
export const DEFAULT_WORKFLOW_RUN_COMPUTE_MS = 30_000;
/** The `forEach` items of a plan stored before the limit existed (the smallest plan's). */
export const DEFAULT_WORKFLOW_FOREACH_ITEMS = 100;

export const toPlan = (item: Record<string, unknown>): Plan => {
  const plan = StoredPlan.decode(item);
  const limits: Partial<PlanLimits> = { ...RATE_OF_PLANS_WITHOUT_ONE, ...plan.limits };
  for (const [added, from] of Object.entries(LIMITS_ADDED_LATER) as [keyof PlanLimits, keyof PlanLimits][]) {
    if (limits[added] === undefined) limits[added] = limits[from];
  }
  limits.webhookEndpoints ??= DEFAULT_WEBHOOK_ENDPOINTS;
  limits.workflows ??= DEFAULT_WORKFLOWS;
  limits.dynadataTypes ??= DEFAULT_DYNADATA_TYPES;
  limits.dynadataFieldsPerType ??= DEFAULT_DYNADATA_FIELDS_PER_TYPE;
  limits.workflowRunComputeMs ??= DEFAULT_WORKFLOW_RUN_COMPUTE_MS;
  limits.workflowForEachItems ??= DEFAULT_WORKFLOW_FOREACH_ITEMS;
  return decodeItem(StoredPlan.name, planSchema(), { pk: item.pk, sk: item.sk, ...plan, limits });
};

export const listPlans = async (): Promise<Plan[]> =>
  (
    await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': planKey('').pk },
    })
  ).map(toPlan);

export const getPlan = async (planId: string): Promise<Plan | undefined> => {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: planKey(planId) }));
  return Item ? toPlan(Item) : undefined;
};

/** Creates or replaces a plan of the catalog (operator action). */
export const putPlan = async (plan: Plan, now: Date): Promise<void> => {
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: StoredPlan.item(planKey(plan.id), plan, { updatedAt: now.toISOString() }),
    }),
  );
};

/** A plan of the catalog, for a batch read. */
export const planEntry = (planId: string): BatchEntry<Plan> => ({ key: planKey(planId), decode: toPlan });
