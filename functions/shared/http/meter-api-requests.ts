import { MeterThrottledError } from '../data/throttling';
import { addToMeter, MeterLimitReachedError } from '../data/usage-meters';
import { apiRequestsQuotaError, meterThrottledError } from '../domain/usage';
import { countBilledUnits } from '../observability/metrics';
import { type ApiMiddleware, companyIdOf, requestIdOf } from './api-request';
import { readAuthContext } from './auth-context';
import type { ApiContext } from './router';

/**
 * Reads the caller's credential once (the router takes it from the context) and adds 1 to `api_requests`
 * (UTC month and day) of every authenticated request in one conditional `UpdateItem` of one shard of the
 * month; at the monthly allowance it is refused with 429 `quota_exceeded` before any other work, and a
 * throttled meter write answers 503 `service_unavailable` with `Retry-After` (the request did nothing).
 * Public routes carry no authorizer context and are not metered.
 */
export const meterApiRequests = (): ApiMiddleware => ({
  before: async ({ event, context }) => {
    if (companyIdOf(event) === undefined) return;
    const auth = readAuthContext(event);
    (context as ApiContext).auth = auth;
    const now = new Date();
    try {
      await addToMeter(auth.companyId, 'api_requests', 1, now, auth.apiRequestsPerMonth);
    } catch (error) {
      if (error instanceof MeterThrottledError) throw meterThrottledError();
      if (!(error instanceof MeterLimitReachedError)) throw error;
      throw apiRequestsQuotaError(auth.apiRequestsPerMonth, now);
    }
    countBilledUnits('api_requests', 1, { companyId: auth.companyId, requestId: requestIdOf(event) });
  },
});
