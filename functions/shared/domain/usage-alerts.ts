import { getItemsByKey } from '../data/batch';
import { type CompanyRecord, companyEntry, setCompanyUsageAlerts } from '../data/companies';
import { NotFoundError } from '../errors';
import { USAGE_THRESHOLDS } from '../types/events';
import { METERS, type MeterName } from '../types/meters';

/**
 * A company's usage alerts: for each meter, the percentages of its monthly allowance at which
 * `usage.threshold_reached` is raised (once per meter, percentage and month, when the meter crosses it). A
 * meter the company has not set uses the defaults (80 and 100); an empty list raises nothing for it.
 */
export type UsageAlerts = Record<MeterName, number[]>;

export const alertsOf = (company: Pick<CompanyRecord, 'usageAlerts'>): UsageAlerts =>
  Object.fromEntries(
    METERS.map((meter) => [meter, company.usageAlerts?.[meter] ?? [...USAGE_THRESHOLDS]]),
  ) as UsageAlerts;

export const getUsageAlerts = async (companyId: string): Promise<{ thresholds: UsageAlerts }> => {
  const [company] = await getItemsByKey([companyEntry(companyId)]);
  if (!company) throw new NotFoundError('The company of this credential no longer exists.');
  return { thresholds: alertsOf(company) };
};

/**
 * Replaces the company's thresholds: the meters given take their lists (sorted, without repeats), the others
 * return to the defaults. Takes effect from the next change of the month's usage.
 */
export const putUsageAlerts = async (
  companyId: string,
  thresholds: Partial<Record<MeterName, number[]>>,
  now: Date,
): Promise<{ thresholds: UsageAlerts }> => {
  const set = Object.fromEntries(
    Object.entries(thresholds).map(([meter, list]) => [meter, [...new Set(list)].sort((a, b) => a - b)]),
  );
  await setCompanyUsageAlerts(companyId, set, now);
  return { thresholds: alertsOf({ usageAlerts: set }) };
};
