import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Plan, type PlanLimits, RATE_OF_PLANS_WITHOUT_ONE } from '../types/plans';
import type { BatchEntry } from './batch';
import { ddb, queryAll, tableName } from './client';
import { partitions } from './keys';

/** Plans are global (not per tenant): one partition holds the whole catalog, which is small. */
export const planKey = (planId: string) => ({ pk: partitions.plans(), sk: planId });

const ENTITY = 'plan';

/**
 * Plans are validated against `planSchema` when written (`admin plans put`, the seed) and again by the public
 * catalog route on the way out. This module stays free of zod so the authorizer's bundle does not carry it.
 */
/**
 * Limits added after plans were first stored, each with the limit a plan stored before it reads instead (a
 * transcription source is capped like a transcode source until the operator sets its own figure).
 */
const LIMITS_ADDED_LATER = {
  transcriptionQueueCap: 'transcodeQueueCap',
  transcriptionMaxSourceBytes: 'transcodeMaxSourceBytes',
  transcriptionMaxDurationSeconds: 'transcodeMaxDurationSeconds',
} as const satisfies Partial<Record<keyof PlanLimits, keyof PlanLimits>>;

/** Webhook endpoints of a plan stored before the limit existed. */
export const DEFAULT_WEBHOOK_ENDPOINTS = 10;
/** The compute budget of a workflow run of a plan stored before the limit existed (the smallest plan's). */
export const DEFAULT_WORKFLOW_RUN_COMPUTE_MS = 30_000;

export const toPlan = (item: Record<string, unknown>): Plan => {
  const { pk: _pk, sk: _sk, entity: _entity, updatedAt: _updatedAt, ...plan } = item;
  const limits = { ...RATE_OF_PLANS_WITHOUT_ONE, ...(plan.limits as PlanLimits) };
  for (const [added, from] of Object.entries(LIMITS_ADDED_LATER) as [keyof PlanLimits, keyof PlanLimits][]) {
    if (limits[added] === undefined) limits[added] = limits[from];
  }
  limits.webhookEndpoints ??= DEFAULT_WEBHOOK_ENDPOINTS;
  limits.workflowRunComputeMs ??= DEFAULT_WORKFLOW_RUN_COMPUTE_MS;
  return { ...plan, limits } as unknown as Plan;
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
      Item: { ...planKey(plan.id), entity: ENTITY, ...plan, updatedAt: now.toISOString() },
    }),
  );
};

/** A plan of the catalog, for a batch read. */
export const planEntry = (planId: string): BatchEntry<Plan> => ({ key: planKey(planId), decode: toPlan });
