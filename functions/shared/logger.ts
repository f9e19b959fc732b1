import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import {
  type JobType,
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  statusClassOf,
  type WebhookDeliveryOutcome,
} from './metric-names';
import type { MeterName } from './types/meters';

/**
 * The one observability module of every function (Powertools): a structured JSON logger, EMF metrics and an
 * X-Ray tracer, all under one service name, plus typed helpers for the business figures.
 *
 * - Logs carry the correlation keys of the unit of work (`requestId`, `companyId`, `route` on a request;
 *   `companyId`, `jobId` or `messageId` in a worker), appended per invocation and reset after it.
 * - Metrics are EMF lines on stdout: CloudWatch extracts them from the function's log, no API call is made.
 *   An EMF line has one set of dimensions for all its metrics, so the buffer of `metrics` holds only the
 *   request's own figure (`countRequest`, flushed once per invocation by the middy chain); figures with
 *   dimensions of their own (a meter, a job transition, a delivery outcome) are written at once as lines of
 *   their own.
 * - Tracing: every AWS SDK client is wrapped with `tracer.captureAWSv3Client`, so each AWS call is a
 *   subsegment. Powertools traces only inside Lambda (it turns itself off without `AWS_EXECUTION_ENV`, and
 *   with `POWERTOOLS_TRACE_ENABLED=false`), so the local stack and tests send nothing and wrap nothing.
 *   Outgoing HTTP other than AWS calls are tenants' webhooks, which are not patched: a trace header of ours
 *   has no business in a tenant's endpoint.
 *
 * These three instances are the only ones: every function's middy chain (`pipeline/powertools-chain.ts`)
 * injects the Lambda context into `logger`, opens the handler's subsegment on `tracer` and flushes
 * `metrics`, so how an instance is made is decided here alone.
 */
export const logger = new Logger({ serviceName: SERVICE_NAME });

// Pure: a bundle that never counts a figure (the authorizer) leaves Metrics out.
export const metrics = /* @__PURE__ */ new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: SERVICE_NAME,
});

export const tracer = new Tracer({ serviceName: SERVICE_NAME, captureHTTPsRequests: false });

/** Properties of an EMF line (searchable in Logs Insights), never dimensions. */
export type MetricProperties = Record<string, string | undefined>;

/** Codes come from catalogues; anything else (an unexpected engine error name) is counted as `other`. */
const boundedCode = (code: string): string => (/^[A-Za-z0-9_.:-]{1,64}$/.test(code) ? code : 'other');

/** One metric on an EMF line of its own, with its own dimensions, written at once. */
const writeMetric = (
  name: string,
  dimensions: Record<string, string>,
  value: number,
  properties: MetricProperties = {},
): void => {
  const line = metrics.singleMetric();
  for (const [key, property] of Object.entries(properties)) {
    if (property !== undefined) line.addMetadata(key, property);
  }
  line.addDimensions(dimensions);
  line.addMetric(name, MetricUnit.Count, value);
};

/**
 * One API request, by status class, by route and status, and by problem code when the answer is a problem.
 * Buffered in `metrics` and flushed with the invocation (one request per invocation).
 */
export const countRequest = (route: string, status: number, code?: string): void => {
  metrics.addDimensions({ statusClass: statusClassOf(status) });
  metrics.addDimensions({ route, status: String(status) });
  if (code !== undefined) metrics.addDimensions({ code: boundedCode(code) });
  metrics.addMetric(METRIC.requests, MetricUnit.Count, 1);
};

/** Units added to a usage meter, i.e. billed to the tenant named in the properties. */
export const countBilledUnits = (meter: MeterName, amount: number, properties?: MetricProperties): void => {
  if (amount > 0) writeMetric(METRIC.billedUnits, { meter }, amount, properties);
};

/** A job moved to `to`; a move to `failed` is also counted by its error code. */
export const countJobTransition = (
  jobType: JobType,
  to: string,
  code?: string,
  properties?: MetricProperties,
): void => {
  writeMetric(METRIC.jobTransitions, { jobType, to }, 1, properties);
  if (to === 'failed')
    writeMetric(METRIC.jobFailures, { jobType, code: boundedCode(code ?? 'unknown') }, 1, properties);
};

/** One webhook delivery attempt by outcome, or the final failure of a message (`failed`). */
export const countWebhookDelivery = (
  outcome: WebhookDeliveryOutcome,
  properties?: MetricProperties,
): void => {
  writeMetric(METRIC.webhookDeliveries, { outcome }, 1, properties);
};

/** Writes what `metrics` buffered, if anything (an empty flush only logs a warning). */
export const flushMetrics = (): void => {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
};
