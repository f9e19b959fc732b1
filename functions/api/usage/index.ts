import { getUsageSnapshot } from '../../shared/domain/usage';
import { createApiHandler } from '../../shared/http/middleware';

export const handler = createApiHandler('usage', {
  getUsage: async ({ auth, query }) => ({
    body: {
      success: true,
      usage: await getUsageSnapshot(auth.companyId, query.granularity ?? 'month', new Date(), auth.planId),
    },
  }),
});
