import { getUsageSnapshot } from '../../shared/domain/usage';
import { createApiHandler } from '../../shared/http/middleware';
import { USAGE_ROUTES } from '../../shared/routes/usage-routes';

export const handler = createApiHandler('usage', USAGE_ROUTES, {
  getUsage: async ({ auth, query }) => ({
    body: {
      success: true,
      usage: await getUsageSnapshot(auth.companyId, query.granularity ?? 'month', new Date(), auth.planId),
    },
  }),
});
