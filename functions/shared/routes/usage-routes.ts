import * as z from '../zod';
import { route } from './route-definition';
import { usageSnapshotSchema } from './schemas';

/**
 * The routes of usage (group `usage`): a section of the route table (`route-table.ts` joins the sections into
 * `ROUTES`), imported alone by the group's function, so its bundle holds only its own routes.
 */
export const USAGE_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/usage',
    group: 'usage',
    operationId: 'getUsage',
    summary: 'Tenant usage snapshot',
    tag: 'Usage',
    scope: 'usage:read',
    get query() {
      return z.object({
        granularity: z.enum(['month', 'day']).optional().describe('UTC month (default) or UTC day so far.'),
      });
    },
    get response() {
      return z.object({ success: z.literal(true), usage: usageSnapshotSchema() });
    },
    errors: ['not_found'],
    agent: {
      tool: 'get_usage',
      title: 'Get the usage snapshot',
      description:
        'The usage snapshot of GET /v1/usage without its `{success, usage}` wrapper: meters, compute by ' +
        'category, storage and database bytes, the plan with its limits, the subscription period.',
      effect: 'read',
      answer: 'usage',
    },
  }),
] as const;
