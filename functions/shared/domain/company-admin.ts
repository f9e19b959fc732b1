import { type CompanyRecord, createCompany } from '../data/companies';
import { getPlan } from '../data/plans';
import { newCompanyId } from '../ids';

export class UnknownPlanError extends Error {
  constructor(planId: string) {
    super(`Unknown plan ${planId}`);
    this.name = 'UnknownPlanError';
  }
}

/** Operator action: creates an active company on an existing plan; its subscription starts now. */
export const createCompanyWithPlan = async (
  input: { name: string; planId: string },
  now: Date,
): Promise<CompanyRecord> => {
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
  return company;
};
