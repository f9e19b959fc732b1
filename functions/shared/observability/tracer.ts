import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './metric-names';

/**
 * The X-Ray tracer of every function (Powertools): every AWS SDK client is wrapped with
 * `tracer.captureAWSv3Client`, so each AWS call is a subsegment, and the middy chain opens the handler's
 * subsegment. Powertools traces only inside Lambda (it turns itself off without `AWS_EXECUTION_ENV`, and with
 * `POWERTOOLS_TRACE_ENABLED=false`), so the local stack and tests send nothing and wrap nothing. Outgoing HTTP
 * other than AWS calls are tenants' webhooks, which are not patched: a trace header of ours has no business in
 * a tenant's endpoint. Why it is built at init: `docs/decisions/0007-tracing-cost.md`.
 */
export const tracer = new Tracer({ serviceName: SERVICE_NAME, captureHTTPsRequests: false });
