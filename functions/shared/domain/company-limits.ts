import { getItemsByKey } from '../data/batch';
import { type CompanyRecord, companyEntry } from '../data/companies';
import { getPlan } from '../data/plans';
import { NotFoundError } from '../errors';
import { cachedOrLoad, createTtlCache } from '../ttl-cache';
import type { Plan, PlanLimits } from '../types/plans';
import { resolveLimits } from './limits';

/**
 * A company's effective limits as the job types check them (enqueue, and the workers' probe steps): the
 * company record (read by the caller, often in the same batch as what it checks) and its plan, which comes
 * from a per-process cache.
 */
const planCache = createTtlCache<Plan>(60_000, 100);

/** Plans change rarely: one read per plan and minute per process. */
const cachedPlan = (planId: string): Promise<Plan | undefined> =>
  cachedOrLoad(planCache, planId, Date.now(), () => getPlan(planId));

/** The limits of a company already read; a missing company is a 404 for its credential. */
export const limitsOf = async (
  companyId: string,
  company: Pick<CompanyRecord, 'planId' | 'limitOverrides'> | undefined,
): Promise<PlanLimits> => {
  if (!company) throw new NotFoundError('The company of this credential no longer exists.');
  const plan = await cachedPlan(company.planId);
  if (!plan) throw new Error(`Company ${companyId} is on unknown plan ${company.planId}`);
  return resolveLimits(plan.limits, company);
};

/** The company's resolved limits (plan with overrides), reading the company. */
export const companyLimits = async (companyId: string): Promise<PlanLimits> => {
  const [company] = await getItemsByKey([companyEntry(companyId)]);
  return limitsOf(companyId, company);
};
