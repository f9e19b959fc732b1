import * as z from '../zod';
import { route } from './route-definition';
import { usageAlertsBodySchema, usageAlertsSchema, usageHistorySchema, usageSnapshotSchema } from './schemas';

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
    sdk: 'usage.get',
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
  route({
    method: 'GET',
    path: '/v1/usage/history',
    group: 'usage',
    operationId: 'getUsageHistory',
    sdk: 'usage.getHistory',
    summary: 'Usage series by UTC day or month',
    description:
      'The meters and compute time of each UTC day (`granularity=day`, the default: `from` and `to` as ' +
      '`yyyy-mm-dd`, at most 366 days) or month (`yyyy-mm`, at most 36 months) from `from` to `to`, both ' +
      'included, oldest first. Every period is a point, zeros where nothing was counted. Stored and database ' +
      'bytes are running totals, in the snapshot of GET /v1/usage.',
    tag: 'Usage',
    scope: 'usage:read',
    get query() {
      return z.object({
        granularity: z.enum(['day', 'month']).optional().describe('`day` (default) or `month`, UTC.'),
        from: z
          .string()
          .max(10)
          .regex(/^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$/)
          .describe('First period: `yyyy-mm-dd` by day, `yyyy-mm` by month.'),
        to: z
          .string()
          .max(10)
          .regex(/^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$/)
          .describe('Last period, included, not before `from`.'),
      });
    },
    get response() {
      return usageHistorySchema();
    },
    examples: {
      response: {
        granularity: 'day',
        from: '2026-11-01',
        to: '2026-11-01',
        points: [
          {
            period: '2026-11-01',
            start: '2026-11-01T00:00:00.000Z',
            end: '2026-11-02T00:00:00.000Z',
            meters: {
              api_requests: 1204,
              transcode_seconds: 60,
              transcription_seconds: 0,
              speech_characters: 3200,
              workflow_runs: 4,
            },
            computeMs: { api: 18230, workers: 5120, media: 6400, workflows: 910 },
          },
        ],
      },
    },
    agent: {
      tool: 'get_usage_history',
      title: 'Get a usage series',
      description:
        'The meters and compute time per UTC day or month of a range, as GET /v1/usage/history: every ' +
        'period a point, zeros where nothing was counted.',
      effect: 'read',
    },
    workflow: { action: 'actions/usage/history', maxDurationMs: 5_000 },
  }),
  route({
    method: 'GET',
    path: '/v1/usage/alerts',
    group: 'usage',
    operationId: 'getUsageAlerts',
    sdk: 'usage.alerts.get',
    summary: 'Usage alert thresholds',
    description:
      'For each meter, the percentages of its monthly allowance at which `usage.threshold_reached` is raised ' +
      '(once per meter, percentage and month, when the meter crosses it). Unset meters use 80 and 100.',
    tag: 'Usage',
    scope: 'usage:read',
    get response() {
      return usageAlertsSchema();
    },
    errors: ['not_found'],
    examples: {
      response: {
        thresholds: {
          api_requests: [80, 100],
          transcode_seconds: [80, 100],
          transcription_seconds: [80, 100],
          speech_characters: [50, 90, 100],
          workflow_runs: [80, 100],
        },
      },
    },
  }),
  route({
    method: 'PUT',
    path: '/v1/usage/alerts',
    group: 'usage',
    operationId: 'putUsageAlerts',
    sdk: 'usage.alerts.put',
    summary: 'Set usage alert thresholds',
    description:
      'Replaces the thresholds: each meter given takes its list (whole percentages 1 to 100, at most 5; an ' +
      'empty list raises nothing for it), the others return to 80 and 100. Takes effect from the next change ' +
      "of the month's usage; a meter already past a new threshold does not raise it that month.",
    tag: 'Usage',
    scope: 'usage:write',
    get body() {
      return usageAlertsBodySchema();
    },
    get response() {
      return usageAlertsSchema();
    },
    errors: ['not_found'],
    examples: {
      request: { thresholds: { speech_characters: [50, 90, 100] } },
      response: {
        thresholds: {
          api_requests: [80, 100],
          transcode_seconds: [80, 100],
          transcription_seconds: [80, 100],
          speech_characters: [50, 90, 100],
          workflow_runs: [80, 100],
        },
      },
    },
  }),
] as const;
