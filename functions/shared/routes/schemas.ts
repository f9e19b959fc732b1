import { cursorField, timestampField } from '../fields';
import { lazy } from '../lazy';
import { METERS, type MeterName } from '../types/meters';
import type { Plan, PlanLimits } from '../types/plans';
import * as z from '../zod';

/** Shapes shared by several routes. Every field carries a description: they become the OpenAPI document. */

/**
 * The answer of a DELETE (docs/openapi.md, Conventions, rule 2): 200 with `deleted: true` and the members that
 * name what was deleted as its read names them (`id`, `_id`, `name`, or `bucket` and `fullPath`); a resource the
 * company has one of (its messaging channel) has none. Members a route adds beside them follow.
 */
export const deletedAnswer = <const S extends Record<string, z.ZodType>>(identifiers: S) =>
  z.object({ deleted: z.literal(true).describe('The resource is deleted.'), ...identifiers });

export const planLimitsSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      apiRequestsPerMonth: z
        .number()
        .int()
        .nonnegative()
        .describe('Authenticated API requests per UTC month.'),
      requestsPerSecond: z
        .number()
        .int()
        .positive()
        .describe('Steady request rate per company, per second; above it requests get 429 `throttled`.'),
      burst: z
        .number()
        .int()
        .positive()
        .describe('Requests a company may send at once above its steady rate (token-bucket capacity).'),
      storageBytes: z.number().int().nonnegative().describe('Total bytes of stored files.'),
      maxObjectBytes: z.number().int().positive().describe('Largest single file accepted for upload.'),
      databaseBytes: z.number().int().nonnegative().describe('Total bytes of Dynadata items.'),
      transcodeSecondsPerMonth: z
        .number()
        .int()
        .nonnegative()
        .describe('Media seconds transcoded per UTC month.'),
      transcodeQueueCap: z
        .number()
        .int()
        .nonnegative()
        .describe('Unfinished transcode jobs allowed at once.'),
      transcodeMaxSourceBytes: z.number().int().positive().describe('Largest transcode source file.'),
      transcodeMaxDurationSeconds: z
        .number()
        .int()
        .positive()
        .describe('Longest transcode source, in seconds.'),
      transcriptionSecondsPerMonth: z
        .number()
        .int()
        .nonnegative()
        .describe('Audio seconds transcribed per month.'),
      transcriptionQueueCap: z
        .number()
        .int()
        .nonnegative()
        .describe('Unfinished transcription jobs allowed at once.'),
      transcriptionMaxSourceBytes: z.number().int().positive().describe('Largest transcription source file.'),
      transcriptionMaxDurationSeconds: z
        .number()
        .int()
        .positive()
        .describe('Longest transcription source, in seconds.'),
      speechCharactersPerMonth: z.number().int().nonnegative().describe('Characters synthesized per month.'),
      speechJobQueueCap: z
        .number()
        .int()
        .nonnegative()
        .describe('Unfinished long-form speech jobs allowed at once.'),
      workflowRunsPerMonth: z.number().int().nonnegative().describe('Workflow runs per UTC month.'),
      workflowRunComputeMs: z
        .number()
        .int()
        .positive()
        .describe(
          'Total step time one workflow run may use, in milliseconds: past it the run fails with ' +
            '`workflow_compute_exceeded` (the time used is still counted).',
        ),
      workflowForEachItems: z
        .number()
        .int()
        .positive()
        .describe(
          'Items one `forEach` step of a workflow may loop over: past it the step fails with ' +
            '`foreach_too_many_items`.',
        ),
      logRetentionDays: z.number().int().positive().describe('Days the log_entries audit trail is kept.'),
      webhookEndpoints: z.number().int().nonnegative().describe('Webhook endpoints a company may register.'),
      workflows: z
        .number()
        .int()
        .nonnegative()
        .describe('Workflow definitions a company may have at once (`PUT /v1/workflows/{id}`).'),
      dynadataTypes: z
        .number()
        .int()
        .nonnegative()
        .describe('Custom Dynadata types a company may have at once (`PUT /v1/dynadata/types/{type}`).'),
      dynadataFieldsPerType: z
        .number()
        .int()
        .positive()
        .describe('Fields (properties at any depth) the schema of one Dynadata type may declare.'),
    })
    .describe('Numeric limits of a plan. A company may have per-limit overrides on top of its plan.'),
);

export const planSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: z.string().describe('Stable plan identifier, for example `starter`.'),
      name: z.string(),
      description: z.string(),
      sellable: z.boolean().describe('Whether the plan is currently on sale.'),
      price: z.object({
        amount: z.number().int().nonnegative().describe('Price in minor units of the currency (cents).'),
        currency: z.string().length(3).describe('ISO 4217 currency code.'),
        interval: z.enum(['month', 'year']),
      }),
      limits: planLimitsSchema(),
    })
    .describe('An entry of the public plan catalog.'),
);

/** The schemas describe exactly the shared plan types (a compile error otherwise). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _planSchemaMatchesType: Same<z.infer<ReturnType<typeof planSchema>>, Plan> &
  Same<z.infer<ReturnType<typeof planLimitsSchema>>, PlanLimits> = true;

export const subscriptionSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      status: z.enum(['active', 'past_due', 'canceled']),
      currentPeriodStart: timestampField().describe('Start of the current subscription period (UTC).'),
      currentPeriodEnd: timestampField().describe('End of the current subscription period (UTC, exclusive).'),
    })
    .describe('Subscription period of the company. Not necessarily aligned with UTC calendar months.'),
);

export const companySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: z.string().describe('Company (tenant) identifier.'),
      name: z.string(),
      status: z.enum(['active', 'suspended']),
      planId: z.string().describe('Plan of the company; its resolved limits are in `GET /v1/usage`.'),
      createdAt: timestampField(),
      subscription: subscriptionSchema(),
    })
    .describe('The authenticated company.'),
);

const meterFigures = /* @__PURE__ */ lazy(() =>
  z
    .object({
      api_requests: z.number().int().describe('Authenticated API requests (all three auth headers).'),
      transcode_seconds: z.number().describe('Media seconds transcoded (reused outputs bill nothing).'),
      transcription_seconds: z.number().describe('Audio seconds transcribed.'),
      speech_characters: z.number().int().describe('Characters synthesized.'),
      workflow_runs: z.number().int().describe('Workflow runs.'),
    })
    .describe('Meter totals for the window.'),
);

const computeFigures = /* @__PURE__ */ lazy(() =>
  z
    .object({
      api: z.number().describe('Milliseconds of API request handling.'),
      workers: z.number().describe('Milliseconds of job workers.'),
      media: z.number().describe('Milliseconds of media engines.'),
      workflows: z.number().describe('Milliseconds of workflow runs.'),
    })
    .describe('Compute time by category for the window, in milliseconds.'),
);

/** `GET /v1/usage/history`: one point per UTC day or month of the range, zeros where nothing was counted. */
export const usageHistorySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      granularity: z.enum(['day', 'month']),
      from: z.string().describe('First period, as asked.'),
      to: z.string().describe('Last period, as asked.'),
      points: z
        .array(
          z.object({
            period: z.string().describe('`yyyy-mm-dd` (day) or `yyyy-mm` (month), UTC.'),
            start: timestampField().describe('Inclusive UTC start.'),
            end: timestampField().describe('Exclusive UTC end.'),
            meters: meterFigures(),
            computeMs: computeFigures(),
          }),
        )
        .describe('Every period from `from` to `to`, oldest first.'),
    })
    .describe("A usage series: the snapshot's meters and compute time per UTC day or month."),
);

const alertList = /* @__PURE__ */ lazy(() =>
  z
    .array(z.number().int().min(1).max(100))
    .max(5)
    .describe('Whole percentages of the monthly allowance, 1 to 100, at most 5.'),
);

/** The thresholds of every meter (`GET`/`PUT /v1/usage/alerts`). */
export const usageAlertsSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      thresholds: z
        .object(
          Object.fromEntries(METERS.map((meter) => [meter, alertList()])) as Record<
            MeterName,
            ReturnType<typeof alertList>
          >,
        )
        .describe('Per meter, the percentages that raise `usage.threshold_reached`, ascending.'),
    })
    .describe('Usage alert thresholds.'),
);

export const usageAlertsBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      thresholds: z
        .object(
          Object.fromEntries(METERS.map((meter) => [meter, alertList().optional()])) as Record<
            MeterName,
            ReturnType<ReturnType<typeof alertList>['optional']>
          >,
        )
        .strict()
        .describe('The meters to set; a meter left out returns to 80 and 100.'),
    })
    .strict(),
);

export const usageSnapshotSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      window: z
        .object({
          granularity: z.enum(['month', 'day']),
          start: timestampField().describe('Inclusive UTC start.'),
          end: timestampField().describe('Exclusive UTC end.'),
        })
        .describe('The UTC calendar window; not necessarily the subscription period.'),
      asOf: timestampField().describe('When the snapshot was read.'),
      meters: meterFigures(),
      computeMs: computeFigures(),
      storageBytes: z.number().int().describe('Bytes of stored files now.'),
      databaseBytes: z.number().int().describe('Bytes of Dynadata items now.'),
      plan: z
        .object({ id: z.string(), name: z.string(), limits: planLimitsSchema() })
        .describe('Active plan, resolved limits.'),
      subscription: subscriptionSchema(),
    })
    .describe('Tenant usage snapshot (the MCP tool get_usage returns the same object without the wrapper).'),
);

/**
 * A number or boolean given as JSON, as the query string would carry it: the doors that take one JSON object
 * (an MCP tool, a workflow step) pass `limit: 5` to the same schema that parses `?limit=5`.
 */
const asQueryText = (value: unknown): unknown =>
  typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;

/**
 * A whole number in the query string: sent as text, documented and parsed as an integer, so a generated client
 * passes `limit: 5` while `?limit=5` from a browser still works.
 */
export const queryInteger = (bounds: { min: number; max: number; default?: number }, description: string) =>
  z
    .preprocess(asQueryText, z.string().regex(/^[0-9]{1,9}$/, 'must be a whole number'))
    .transform(Number)
    .pipe(z.number().int().min(bounds.min).max(bounds.max))
    .optional()
    .meta({
      type: 'integer',
      minimum: bounds.min,
      maximum: bounds.max,
      ...(bounds.default === undefined ? {} : { default: bounds.default }),
    })
    .describe(description);

/** `true` or `false` in the query string, documented and parsed as a boolean. */
export const queryBoolean = (description: string) =>
  z
    .preprocess(asQueryText, z.enum(['true', 'false']))
    .transform((value) => value === 'true')
    .optional()
    .meta({ type: 'boolean' })
    .describe(description);

/**
 * The one paging rule of every list (`docs/errors-and-input.md#lists`): `limit` and `cursor` in (the query
 * string of a GET list, the body of `POST …/list`), the page's array named after what it holds and
 * `nextCursor` out, null on the last page. A cursor is opaque: pass it back as it came.
 */
export const pageQuery = (noun: string, max: number, defaultLimit: number) => ({
  limit: queryInteger(
    { min: 1, max, default: defaultLimit },
    `${noun} per page, 1 to ${max} (default ${defaultLimit}).`,
  ),
  cursor: cursorField('The `nextCursor` of the previous page; omit it for the first page.'),
});

export const nextCursorSchema = /* @__PURE__ */ lazy(() =>
  z.string().nullable().describe('Pass it as `cursor` for the next page; null on the last page.'),
);
