/**
 * Names of the platform's business metrics (CloudWatch embedded metric format), shared by the runtime that
 * writes them (`logger.ts`) and the CDK observability stack that graphs and alarms on them. Imports nothing,
 * so the CDK app can read it without loading any runtime module.
 *
 * Every metric carries the `service` dimension (Powertools adds it) besides its own, listed here. Dimension
 * values are bounded by code (routes of the route table, HTTP statuses, catalogued codes, meter names,
 * outcomes): a company id is never a dimension, only a property of the EMF line.
 */

/** Service name of every function's logs, traces and metrics (`POWERTOOLS_SERVICE_NAME`). */
export const SERVICE_NAME = 'public-api-v1';

/** CloudWatch namespace of the business metrics (`POWERTOOLS_METRICS_NAMESPACE`). */
export const METRICS_NAMESPACE = 'PublicApiV1';

export const METRIC = {
  /**
   * One per API request answered by a route group, in three dimension sets: `statusClass` (2xx, 4xx, 5xx),
   * `route` + `status` (route as in the route table, `GET /v1/self`), and `code` (problem responses only).
   */
  requests: 'Requests',
  /** Units added to a usage meter (`meter`): what the tenant is billed for. */
  billedUnits: 'BilledUnits',
  /** A job moved to a status (`jobType`, `to`). */
  jobTransitions: 'JobTransitions',
  /** A job moved to `failed`, by the error code recorded on it (`jobType`, `code`). */
  jobFailures: 'JobFailures',
  /** One webhook delivery attempt or final failure of a message (`outcome`). */
  webhookDeliveries: 'WebhookDeliveries',
} as const;

/**
 * Outcomes of a webhook delivery. Attempts: `delivered` (2xx), `rejected` (any other 4xx: not retried),
 * `server_error` (5xx, 408 or 429: retried), `network_error` (no answer: retried), `refused_address` (the
 * URL or the address it resolves to is not deliverable), `no_channel` (the company has no webhook).
 * `failed` is not an attempt: the message was marked failed once the state machine gave up.
 */
export const WEBHOOK_DELIVERY_OUTCOMES = [
  'delivered',
  'rejected',
  'server_error',
  'network_error',
  'refused_address',
  'no_channel',
  'failed',
] as const;
export type WebhookDeliveryOutcome = (typeof WEBHOOK_DELIVERY_OUTCOMES)[number];

/** Attempts that reached no 2xx answer (every outcome but `delivered` and the final `failed`). */
export const FAILED_WEBHOOK_ATTEMPTS = [
  'rejected',
  'server_error',
  'network_error',
  'refused_address',
  'no_channel',
] as const satisfies readonly WebhookDeliveryOutcome[];

/** Job types whose transitions are counted. */
export const JOB_TYPES = ['transcode', 'transcription', 'speech_job'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** `2xx`, `4xx`, `5xx`, ... of an HTTP status. */
export const statusClassOf = (status: number): string => `${Math.floor(status / 100)}xx`;
