import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PlanLimits } from '../types/plans';
import type { BatchEntry } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';

export const companyKey = (companyId: string) => ({ pk: `CO#${companyId}`, sk: 'PROFILE' });

const ENTITY = 'company';

export interface CompanyRecord {
  companyId: string;
  name: string;
  planId: string;
  status: 'active' | 'suspended';
  createdAt: string;
  /** Monthly subscription periods are anchored at this instant (see `subscriptionPeriod`). */
  subscriptionAnchor: string;
  subscriptionStatus: 'active' | 'past_due' | 'canceled';
  /** Per-company overrides of the plan's limits. */
  limitOverrides?: Partial<PlanLimits>;
}

export class CompanyExistsError extends Error {
  constructor(companyId: string) {
    super(`Company ${companyId} already exists`);
    this.name = 'CompanyExistsError';
  }
}

export const createCompany = async (company: CompanyRecord): Promise<void> => {
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...companyKey(company.companyId), entity: ENTITY, ...company },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new CompanyExistsError(company.companyId);
    throw error;
  }
};

export const toCompany = (item: Record<string, unknown>): CompanyRecord => {
  const { pk: _pk, sk: _sk, entity: _entity, ...company } = item;
  return company as unknown as CompanyRecord;
};

export const getCompany = async (companyId: string): Promise<CompanyRecord | undefined> => {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: companyKey(companyId) }));
  return Item ? toCompany(Item) : undefined;
};

/** The company profile, for a batch read. */
export const companyEntry = (companyId: string): BatchEntry<CompanyRecord> => ({
  key: companyKey(companyId),
  decode: toCompany,
});
