import { getUsageSnapshot } from '../domain/usage';
import { putUsageAlerts as setUsageAlerts, getUsageAlerts as usageAlerts } from '../domain/usage-alerts';
import { getUsageHistory as usageHistory } from '../domain/usage-history';
import type { RouteHandler } from '../http/router';

/** What the usage operations do: their routes, MCP tools and workflow action. */
export const getUsage: RouteHandler<'getUsage'> = async ({ auth, query, now }) => ({
  body: {
    success: true,
    usage: await getUsageSnapshot(auth.companyId, query.granularity ?? 'month', now, auth.planId),
  },
});

export const getUsageHistory: RouteHandler<'getUsageHistory'> = async ({ auth, query }) => ({
  body: await usageHistory(auth.companyId, {
    granularity: query.granularity ?? 'day',
    from: query.from,
    to: query.to,
  }),
});

export const getUsageAlerts: RouteHandler<'getUsageAlerts'> = async ({ auth }) => ({
  body: await usageAlerts(auth.companyId),
});

export const putUsageAlerts: RouteHandler<'putUsageAlerts'> = async ({ auth, body, now }) => ({
  body: await setUsageAlerts(auth.companyId, body.thresholds, now),
});
