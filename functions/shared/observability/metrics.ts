import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MeterName } from '../types/meters';
import {
  type JobType,
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  statusClassOf,
  type WebhookDeliveryOutcome,
} from './metric-names';

/**
 * The EMF metrics of every function (Powertools) and typed helpers for the business figures. Metrics are EMF
 * lines on stdout: CloudWatch extracts them from the function's log, no API call is made. An EMF line has one
 * set of dimensions for all its metrics, so the buffer of `metrics` holds only the request's own figure
 * (`countRequest`, flushed once per invocation by the middy chain); figures with dimensions of their own (a
 * meter, a job transition, a delivery outcome) are written at once as lines of their own.
 */
// Pure: a bundle that never counts a figure (the authorizer) leaves Metrics out.
export const metrics = /* @__PURE__ */ new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: SERVICE_NAME,
});

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
