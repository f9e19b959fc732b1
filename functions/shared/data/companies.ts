import { GetCommand, PutCommand, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PlanLimits } from '../types/plans';
import type { BatchEntry } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { partitions, sortKeys } from './keys';

export const companyKey = (companyId: string) => ({
  pk: partitions.company(companyId),
  sk: sortKeys.companyProfile,
});

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
  /**
   * The company's API Gateway API key (AWS only): a random usage identifier, never a credential and never
   * shown to the company, in the usage plan of the company's plan (`domain/company-rate-keys.ts`).
   */
  rateKey?: { id: string; value: string };
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

export class UnknownCompanyError extends Error {
  constructor(companyId: string) {
    super(`no company ${companyId}`);
    this.name = 'UnknownCompanyError';
  }
}

const updateCompany = async (companyId: string, set: Record<string, unknown>): Promise<CompanyRecord> => {
  const names = Object.keys(set);
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: companyKey(companyId),
        UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, set[name]])),
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toCompany(Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new UnknownCompanyError(companyId);
    throw error;
  }
};

/** Moves an existing company to another plan; returns the updated profile. */
export const setCompanyPlan = (companyId: string, planId: string): Promise<CompanyRecord> =>
  updateCompany(companyId, { planId });

/** Records the company's API Gateway usage key on its profile. */
export const setCompanyRateKey = (
  companyId: string,
  rateKey: { id: string; value: string },
): Promise<CompanyRecord> => updateCompany(companyId, { rateKey });

/** Every company profile, page by page (an operator scan of the table; not for the request path). */
export async function* allCompanies(): AsyncGenerator<CompanyRecord> {
  const pages = paginateScan(
    { client: ddb },
    {
      TableName: tableName(),
      FilterExpression: 'entity = :entity AND sk = :sk',
      ExpressionAttributeValues: { ':entity': ENTITY, ':sk': sortKeys.companyProfile },
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) yield toCompany(item);
}
