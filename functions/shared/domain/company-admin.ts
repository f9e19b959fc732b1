import type { UsageKeyStore } from '../aws/usage-plan-keys';
import { type CompanyRecord, createCompany, setCompanyPlan } from '../data/companies';
import { getPlan } from '../data/plans';
import { newCompanyId } from '../ids';
import { placeCompanyRateKey, type RateKeyPlacement } from './company-rate-keys';

export class UnknownPlanError extends Error {
  constructor(planId: string) {
    super(`Unknown plan ${planId}`);
    this.name = 'UnknownPlanError';
  }
}

/**
 * Where the company's usage key lives: the API Gateway of the AWS target. Absent for the local stack, whose
 * gateway keeps a bucket per company itself.
 */
export type RateKeys = UsageKeyStore | undefined;

const placeKey = async (company: CompanyRecord, rateKeys: RateKeys): Promise<RateKeyPlacement | undefined> =>
  rateKeys ? placeCompanyRateKey(company, rateKeys, await rateKeys.usagePlansByPlan()) : undefined;

/** Operator action: creates an active company on an existing plan; its subscription starts now. */
export const createCompanyWithPlan = async (
  input: { name: string; planId: string },
  now: Date,
  rateKeys?: RateKeys,
): Promise<CompanyRecord & { rateKeyPlacement?: RateKeyPlacement }> => {
  if (!(await getPlan(input.planId))) throw new UnknownPlanError(input.planId);
  const company: CompanyRecord = {
    companyId: newCompanyId(),
    name: input.name,
    planId: input.planId,
    status: 'active',
    createdAt: now.toISOString(),
    subscriptionAnchor: now.toISOString(),
    subscriptionStatus: 'active',
  };
  await createCompany(company);
  const placement = await placeKey(company, rateKeys);
  return placement ? { ...company, rateKeyPlacement: placement } : company;
};

/**
 * Operator action: moves a company to another existing plan. On AWS its usage key moves to the new plan's
 * usage plan; if that step fails, `companies sync-rate-keys` finishes it.
 */
export const changeCompanyPlan = async (
  input: { companyId: string; planId: string },
  rateKeys?: RateKeys,
): Promise<CompanyRecord & { rateKeyPlacement?: RateKeyPlacement }> => {
  if (!(await getPlan(input.planId))) throw new UnknownPlanError(input.planId);
  const company = await setCompanyPlan(input.companyId, input.planId);
  const placement = await placeKey(company, rateKeys);
  return placement ? { ...company, rateKeyPlacement: placement } : company;
};
