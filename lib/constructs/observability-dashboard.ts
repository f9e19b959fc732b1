import { Duration } from 'aws-cdk-lib';
import { Dashboard, GraphWidget, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  WEBHOOK_DELIVERY_OUTCOMES,
} from '../../functions/shared/observability/metric-names';
import type { Observed } from './observability-alarms';
import {
  businessMetric,
  codesWithStatus,
  deliveryMetrics,
  PERIOD,
  requestsOfCode,
  searchExpression,
  tableMetric,
} from './observability-metrics';

/**
 * The one dashboard on-call engineers open: the API's requests, errors and latency, the functions, the table
 * and the jobs, then the business figures (status classes, problem codes, routes, meters, job transitions
 * and failures, webhook delivery outcomes).
 */
export const addDashboard = (scope: Construct, observed: Observed): Dashboard => {
  const { rest, groupFunctions, workers, table, machines } = observed;
  const dashboard = new Dashboard(scope, 'Dashboard', { defaultInterval: Duration.hours(3) });
  const sum = { period: PERIOD, statistic: 'Sum' };
  dashboard.addWidgets(
    new TextWidget({
      markdown:
        '# Public API v1\nAlarms go to the alarm topic. Runbook: docs/operate.md#runbook. 4xx answers are tenant ' +
        'traffic (bad input, quotas, refused credentials), 5xx are ours.',
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Requests and errors',
      left: [rest.metricCount(sum), rest.metricClientError(sum), rest.metricServerError(sum)],
      width: 12,
    }),
    new GraphWidget({
      title: 'Latency (p50, p99)',
      left: [
        rest.metricLatency({ period: PERIOD, statistic: 'p50' }),
        rest.metricLatency({ period: PERIOD, statistic: 'p99' }),
        rest.metricIntegrationLatency({ period: PERIOD, statistic: 'p99' }),
      ],
      width: 12,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Function errors',
      left: [...groupFunctions, ...workers].map(([name, fn]) => fn.metricErrors({ ...sum, label: name })),
      width: 12,
    }),
    new GraphWidget({
      title: 'Function duration p99',
      left: [['authorizer', observed.authorizer] as [string, IFunction], ...groupFunctions].map(
        ([name, fn]) => fn.metricDuration({ period: PERIOD, statistic: 'p99', label: name }),
      ),
      width: 12,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Table: throttles, errors, consumed capacity',
      left: [tableMetric(table, 'ThrottledRequests'), tableMetric(table, 'SystemErrors')],
      right: [
        tableMetric(table, 'ConsumedReadCapacityUnits'),
        tableMetric(table, 'ConsumedWriteCapacityUnits'),
      ],
      width: 12,
    }),
    new GraphWidget({
      title: 'Jobs: executions started, succeeded, failed, timed out',
      left: machines.flatMap(([name, m]) => [
        m.metricStarted({ ...sum, label: `${name} started` }),
        m.metricSucceeded({ ...sum, label: `${name} succeeded` }),
        m.metricFailed({ ...sum, label: `${name} failed` }),
        m.metricTimedOut({ ...sum, label: `${name} timed out` }),
      ]),
      width: 12,
    }),
  );
  dashboard.addWidgets(
    new TextWidget({
      markdown:
        `## Business figures\nEMF metrics of the functions, namespace \`${METRICS_NAMESPACE}\`, dimension ` +
        `\`service\` = \`${SERVICE_NAME}\`. Per company: Logs Insights on the EMF lines (\`companyId\`).`,
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Requests by status class (route groups)',
      left: ['2xx', '4xx', '5xx'].map((statusClass) =>
        businessMetric(METRIC.requests, { statusClass }, statusClass),
      ),
      width: 8,
    }),
    new GraphWidget({
      title: '5xx problems by code',
      left: codesWithStatus(500, 600).map(requestsOfCode),
      width: 8,
    }),
    new GraphWidget({
      title: '4xx problems by code',
      left: codesWithStatus(400, 500).map(requestsOfCode),
      width: 8,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Requests by route and status',
      left: [searchExpression(['route', 'status'], METRIC.requests)],
      width: 12,
    }),
    new GraphWidget({
      title: 'Billed units per meter',
      left: [searchExpression(['meter'], METRIC.billedUnits)],
      width: 12,
    }),
  );
  const deliveries = deliveryMetrics();
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Job transitions',
      left: [searchExpression(['jobType', 'to'], METRIC.jobTransitions)],
      width: 8,
    }),
    new GraphWidget({
      title: 'Job failures by code',
      left: [searchExpression(['jobType', 'code'], METRIC.jobFailures)],
      width: 8,
    }),
    new GraphWidget({
      title: 'Webhook deliveries by outcome',
      left: WEBHOOK_DELIVERY_OUTCOMES.map((outcome) => deliveries[outcome]),
      width: 8,
    }),
  );
  return dashboard;
};
