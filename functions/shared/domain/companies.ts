import { type CompanyRecord, getCompany } from '../data/companies';
import { NotFoundError } from '../errors';
import { subscriptionPeriod } from './subscription';

export interface CompanyProfile {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  planId: string;
  createdAt: string;
  subscription: {
    status: CompanyRecord['subscriptionStatus'];
    currentPeriodStart: string;
    currentPeriodEnd: string;
  };
}

/** The profile `GET /v1/self` returns: one read of the company item. */
export const getCompanyProfile = async (companyId: string, now: Date): Promise<CompanyProfile> => {
  const company = await getCompany(companyId);
  if (!company) throw new NotFoundError('The company of this credential no longer exists.');
  const period = subscriptionPeriod(company.subscriptionAnchor, now);
  return {
    id: company.companyId,
    name: company.name,
    status: company.status,
    planId: company.planId,
    createdAt: company.createdAt,
    subscription: {
      status: company.subscriptionStatus,
      currentPeriodStart: period.start.toISOString(),
      currentPeriodEnd: period.end.toISOString(),
    },
  };
};
