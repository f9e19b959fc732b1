import { getCompany } from '../shared/data/companies';
import { getPlan } from '../shared/data/plans';
import { resolveLimits } from '../shared/domain/limits';
import { env } from '../shared/env';
import { createTtlCache } from '../shared/ttl-cache';
import type { CompanyProfileHint } from '../shared/types/auth';

/**
 * What the authorizer needs to know about a company: whether it may call, its monthly allowance, its request
 * rate, the storage limits the upload routes enforce without reading the plan again, the plan's id and the
 * company's usage key.
 */
export type CompanyAccess =
  | {
      active: true;
      apiRequestsPerMonth: number;
      maxObjectBytes: number;
      storageBytesLimit: number;
      requestsPerSecond: number;
      burst: number;
      planId: string;
      /** The company's own API Gateway usage key (AWS), when it has one (`domain/company-rate-keys.ts`). */
      usageKey?: string;
      /** What `GET /v1/self` answers, passed on so that the route reads nothing. */
      profile: CompanyProfileHint;
    }
  | { active: false };

const companies = createTtlCache<CompanyAccess>(env().authorizerCacheTtlSeconds * 1000);

export const companyAccess = async (companyId: string, now: number): Promise<CompanyAccess> => {
  const cached = companies.get(companyId, now);
  if (cached) return cached;
  const company = await getCompany(companyId);
  const plan = company ? await getPlan(company.planId) : undefined;
  const limits =
    company && plan && company.status === 'active' ? resolveLimits(plan.limits, company) : undefined;
  const access: CompanyAccess =
    company && limits
      ? {
          active: true,
          apiRequestsPerMonth: limits.apiRequestsPerMonth,
          maxObjectBytes: limits.maxObjectBytes,
          storageBytesLimit: limits.storageBytes,
          requestsPerSecond: limits.requestsPerSecond,
          burst: limits.burst,
          planId: plan?.id ?? '',
          ...(company.rateKey ? { usageKey: company.rateKey.value } : {}),
          profile: {
            name: company.name,
            createdAt: company.createdAt,
            subscriptionAnchor: company.subscriptionAnchor,
            subscriptionStatus: company.subscriptionStatus,
          },
        }
      : { active: false };
  companies.set(companyId, access, now);
  return access;
};
