import { env } from '../shared/env';

/**
 * The usage identifier the authorizer returns (`usageIdentifierKey`): the company's own API key, so API
 * Gateway throttles each company with its own bucket in the usage plan of its plan; a company without one
 * yet (created before keys existed, not synced) falls back to its plan's shared key, and a plan the
 * deployment has no usage plan for to `default`. Undefined where no usage plans are deployed (the local
 * stack, whose gateway keeps a bucket per company itself).
 */
export const usageIdentifierFor = (planId: string, companyKey: string | undefined): string | undefined => {
  const keys = env().usagePlanKeys;
  if (Object.keys(keys).length === 0) return undefined;
  return companyKey ?? keys[planId] ?? keys.default;
};
