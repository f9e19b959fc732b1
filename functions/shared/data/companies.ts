import { GetCommand, PutCommand, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PlanLimits } from '../types/plans';
import * as zm from '../zod-mini';
import type { BatchEntry } from './batch';
import { ddb, isConditionalCheckFailed, tableName } from './client';
import { defineEntity } from './entity';
import { partitions, sortKeys } from './keys';
import { partialPlanLimits } from './schemas';
import { transactUnlessFailed } from './transactions';
import { alertsVersionItem } from './usage-meters';

export const companyKey = (companyId: string) => ({
  pk: partitions.company(companyId),
  sk: sortKeys.companyProfile,
});

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
  /** The percentages of each monthly allowance that raise `usage.threshold_reached` (absent: the defaults). */
  usageAlerts?: Record<string, number[]>;
}

export const Company = /* @__PURE__ */ defineEntity({
  name: 'company',
  key: companyKey,
  get schema() {
    return zm.object({
      companyId: zm.string(),
      name: zm.string(),
      planId: zm.string(),
      status: zm.enum(['active', 'suspended']),
      createdAt: zm.string(),
      subscriptionAnchor: zm.string(),
      subscriptionStatus: zm.enum(['active', 'past_due', 'canceled']),
      limitOverrides: zm.optional(partialPlanLimits()),
      rateKey: zm.optional(zm.object({ id: zm.string(), value: zm.string() })),
      usageAlerts: zm.optional(zm.record(zm.string(), zm.array(zm.number()))),
    }) satisfies zm.ZodMiniType<CompanyRecord>;
  },
});

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
        Item: Company.item(companyKey(company.companyId), company),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new CompanyExistsError(company.companyId);
    throw error;
  }
};

export const toCompany = (item: Record<string, unknown>): CompanyRecord => Company.decode(item);

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

const updateCompany = async (companyId: string, set: Partial<CompanyRecord>): Promise<CompanyRecord> => {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: companyKey(companyId),
        ...Company.update({ set }, { expression: 'attribute_exists(pk)' }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toCompany({ ...companyKey(companyId), ...Attributes });
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

/**
 * Sets the company's usage alert thresholds and, in the same transaction, stamps the usage month item with
 * the time of the change (`alertsVersion`), so the event dispatcher, which caches a company's thresholds and
 * sees that item's changes, reads the new ones from the next change on.
 */
export const setCompanyUsageAlerts = async (
  companyId: string,
  usageAlerts: Record<string, number[]>,
  now: Date,
): Promise<void> => {
  const saved = await transactUnlessFailed(
    [
      {
        Update: {
          TableName: tableName(),
          Key: companyKey(companyId),
          ...Company.update({ set: { usageAlerts } }, { expression: 'attribute_exists(pk)' }),
        },
      },
      alertsVersionItem(companyId, now),
    ],
    0,
  );
  if (!saved) throw new UnknownCompanyError(companyId);
};

/** Every company profile, page by page (an operator scan of the table; not for the request path). */
export async function* allCompanies(): AsyncGenerator<CompanyRecord> {
  const pages = paginateScan(
    { client: ddb },
    {
      TableName: tableName(),
      FilterExpression: 'entity = :entity AND sk = :sk',
      ExpressionAttributeValues: { ':entity': Company.name, ':sk': sortKeys.companyProfile },
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) yield toCompany(item);
}
