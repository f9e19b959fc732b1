import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ERROR_CATALOG, type ErrorCode } from '../../functions/shared/errors';
import {
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  WEBHOOK_DELIVERY_OUTCOMES,
} from '../../functions/shared/observability/metric-names';

/**
 * The metrics the alarms and the dashboard read, each in one place. The business figures are the EMF metrics
 * of `functions/shared/metric-names.ts` (namespace `PublicApiV1`, every one with the `service` dimension).
 * Where their dimension values are a closed list known here (status classes, catalogued problem codes,
 * delivery outcomes) they are plain metrics; where they are open-ended (routes, meters, job statuses and
 * codes) they are SEARCH expressions.
 */
export const PERIOD = Duration.minutes(5);

/** A DynamoDB metric of the table. */
export const tableMetric = (table: ITable, metricName: string) =>
  new Metric({
    namespace: 'AWS/DynamoDB',
    metricName,
    dimensionsMap: { TableName: table.tableName },
    period: PERIOD,
    statistic: 'Sum',
  });

/** A business figure (EMF, written by the functions). */
export const businessMetric = (metricName: string, dimensions: Record<string, string>, label?: string) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME, ...dimensions },
    period: PERIOD,
    statistic: 'Sum',
    ...(label ? { label } : {}),
  });

/** Every series of a business figure over open-ended dimensions, each with its own label. */
export const searchExpression = (dimensions: string[], metricName: string) =>
  new MathExpression({
    expression: `SEARCH('{${[METRICS_NAMESPACE, 'service', ...dimensions].join(',')}} MetricName="${metricName}"', 'Sum', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    period: PERIOD,
    label: '',
  });

/** Requests answered with one catalogued problem code. */
export const requestsOfCode = (code: ErrorCode) => businessMetric(METRIC.requests, { code }, code);

/** The catalogued problem codes whose status lies in [from, to). */
export const codesWithStatus = (from: number, to: number): ErrorCode[] =>
  (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => {
    const { status } = ERROR_CATALOG[code];
    return status >= from && status < to;
  });

export type DeliveryOutcome = (typeof WEBHOOK_DELIVERY_OUTCOMES)[number];

/** Webhook delivery attempts by outcome. */
export const deliveryMetrics = (): Record<DeliveryOutcome, Metric> =>
  Object.fromEntries(
    WEBHOOK_DELIVERY_OUTCOMES.map((outcome) => [
      outcome,
      businessMetric(METRIC.webhookDeliveries, { outcome }, outcome),
    ]),
  ) as Record<DeliveryOutcome, Metric>;
