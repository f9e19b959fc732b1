import { randomBytes } from 'node:crypto';
import type { UsageKeyStore } from '../aws/usage-plan-keys';
import { allCompanies, type CompanyRecord, setCompanyRateKey } from '../data/companies';

/**
 * Request rates per company at the edge (AWS). API Gateway throttles per API key, so each company has its
 * own key in the usage plan of its plan (`lib/constructs/request-rates.ts`); the authorizer returns the key's
 * value as `usageIdentifierKey`. The value is random and never leaves the platform: with the key source
 * AUTHORIZER, API Gateway never reads a key from a request, so it is not a credential.
 *
 * `placeCompanyRateKey` is the one reconciliation every operator path runs (company created, plan changed,
 * backfill): find or create the company's key, record it on the profile, and leave it in exactly the usage
 * plan of the company's plan. Each step is idempotent, so a run cut short is finished by running it again.
 */

/** The key's name in API Gateway: one per company, how a key created before a failed write is found again. */
export const rateKeyName = (companyId: string): string => `company-${companyId}`;

export interface RateKeyPlacement {
  companyId: string;
  planId: string;
  keyId: string;
  usagePlanId: string;
  /** The key was created by this run. */
  created: boolean;
  /** Usage plans the key was taken out of (a plan change). */
  removedFrom: string[];
  /** The key was added to `usagePlanId` by this run. */
  added: boolean;
}

export class NoUsagePlanError extends Error {
  constructor(planId: string) {
    super(`the API has no usage plan for plan ${planId} nor a default one (is the API stack deployed?)`);
    this.name = 'NoUsagePlanError';
  }
}

export const placeCompanyRateKey = async (
  company: CompanyRecord,
  store: UsageKeyStore,
  usagePlans: Readonly<Record<string, string>>,
): Promise<RateKeyPlacement> => {
  const usagePlanId = usagePlans[company.planId] ?? usagePlans.default;
  if (!usagePlanId) throw new NoUsagePlanError(company.planId);
  const name = rateKeyName(company.companyId);
  // Looked up by name, not taken from the profile: a key deleted in API Gateway is made again.
  let key = await store.findKey(name);
  const created = key === undefined;
  key ??= await store.createKey(
    name,
    randomBytes(24).toString('hex'),
    `Request rate of company ${company.companyId} (usage identifier returned by the authorizer; not a credential)`,
  );
  if (company.rateKey?.id !== key.id || company.rateKey.value !== key.value)
    await setCompanyRateKey(company.companyId, key);
  // A key sits in at most one usage plan of a stage: take it out of the others before adding it.
  const current = await store.usagePlansOfKey(key.id);
  const removedFrom = current.filter((id) => id !== usagePlanId);
  for (const id of removedFrom) await store.removeKey(id, key.id);
  const added = !current.includes(usagePlanId);
  if (added) await store.addKey(usagePlanId, key.id);
  return {
    companyId: company.companyId,
    planId: company.planId,
    keyId: key.id,
    usagePlanId,
    created,
    removedFrom,
    added,
  };
};

/** Backfill and repair: places the key of every company; a second run changes nothing. */
export const syncCompanyRateKeys = async (store: UsageKeyStore): Promise<RateKeyPlacement[]> => {
  const usagePlans = await store.usagePlansByPlan();
  const placements: RateKeyPlacement[] = [];
  for await (const company of allCompanies()) {
    placements.push(await placeCompanyRateKey(company, store, usagePlans));
  }
  return placements;
};
