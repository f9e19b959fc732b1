import { type CompanyRecord, getCompany } from '../data/companies';
import { NotFoundError } from '../errors';
import type { AuthContext } from '../types/auth';
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

/**
 * The profile `GET /v1/self` returns: from what the authorizer passed when it passed the profile (the company
 * as the request is held to it, at most the authorizer's cache TTL old, like its plan and limits), else one read
 * of the company item.
 */
export const getCompanyProfile = async (auth: AuthContext, now: Date): Promise<CompanyProfile> => {
  const company =
    auth.profile && auth.planId
      ? { ...auth.profile, companyId: auth.companyId, status: 'active' as const, planId: auth.planId }
      : await getCompany(auth.companyId);
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
