import { env } from '../shared/env';

/**
 * The usage identifier the authorizer returns (`usageIdentifierKey`) so API Gateway throttles the request
 * with the usage plan of the company's plan; a plan the deployment has no usage plan for uses `default`.
 * Undefined where no usage plans are deployed (the local stack).
 */
export const usagePlanKeyFor = (planId: string): string | undefined => {
  const keys = env().usagePlanKeys;
  return keys[planId] ?? keys.default;
};
