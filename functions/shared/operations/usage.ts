import { getUsageSnapshot } from '../domain/usage';
import type { RouteHandler } from '../http/router';

/** What the usage operation does: its route and its MCP tool. */
export const getUsage: RouteHandler<'getUsage'> = async ({ auth, query, now }) => ({
  body: {
    success: true,
    usage: await getUsageSnapshot(auth.companyId, query.granularity ?? 'month', now, auth.planId),
  },
});
