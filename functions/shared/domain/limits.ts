import type { CompanyRecord } from '../data/companies';
import type { PlanLimits } from '../types/plans';

/** A company's effective limits: its plan's defaults with the company's overrides on top. */
export const resolveLimits = (
  planLimits: PlanLimits,
  company: Pick<CompanyRecord, 'limitOverrides'>,
): PlanLimits => ({
  ...planLimits,
  ...company.limitOverrides,
});
