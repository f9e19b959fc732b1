import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../routes/schemas';
import type { BatchEntry } from './batch';
import { ddb, tableName } from './client';

/** Plans are global (not per tenant): one partition holds the whole catalog, which is small. */
export const planKey = (planId: string) => ({ pk: 'PLAN', sk: planId });

const ENTITY = 'plan';

/**
 * Plans are validated against `planSchema` when written (`admin plans put`, the seed) and again by the public
 * catalog route on the way out. This module stays free of zod so the authorizer's bundle does not carry it.
 */
export const toPlan = (item: Record<string, unknown>): Plan => {
  const { pk: _pk, sk: _sk, entity: _entity, updatedAt: _updatedAt, ...plan } = item;
  return plan as Plan;
};

export const listPlans = async (): Promise<Plan[]> => {
  const plans: Plan[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': planKey('').pk },
        ExclusiveStartKey: startKey,
      }),
    );
    plans.push(...(page.Items ?? []).map(toPlan));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return plans;
};

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
