import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import {
  Alarm,
  type AlarmProps,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { ERROR_CATALOG, type ErrorCode } from '../functions/shared/errors';
import {
  FAILED_WEBHOOK_ATTEMPTS,
  type JobType,
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
  WEBHOOK_DELIVERY_OUTCOMES,
} from '../functions/shared/metric-names';
import type { ApiStack } from './api-stack';

/**
 * Job error codes that mean the platform failed the job (an unexpected error, an execution that did not
 * start, a media engine that hung). The other codes (`source_*`: the tenant's input) are only graphed.
 */
export const PLATFORM_JOB_FAILURE_CODES: Record<JobType, readonly string[]> = {
  transcode: ['internal', 'start_failed', 'timeout'],
  transcription: ['internal', 'start_failed', 'timeout'],
};

const codesWithStatus = (from: number, to: number): ErrorCode[] =>
  (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => {
    const { status } = ERROR_CATALOG[code];
    return status >= from && status < to;
  });

export interface ObservabilityStackProps extends StackProps {
  api: ApiStack;
  table: ITable;
  stateMachines: Partial<Record<string, StateMachine>>;
}

/**
 * What on-call engineers watch: one alarm topic (subscribe a pager or e-mail to it), alarms on the signals
 * that mean users are hurt, and one dashboard. Alarms fire on symptoms, not on tenant mistakes: 4xx answers
 * (bad input, quotas, refused credentials) are normal traffic and only shown on the dashboard. The
 * authorizer's Lambda `Errors` metric counts every refused credential (a REQUEST authorizer refuses by
 * throwing), so it is not alarmed on; its throttles and latency are.
 *
 * The business figures are the EMF metrics of `functions/shared/metric-names.ts` (namespace `PublicApiV1`,
 * every one with the `service` dimension). Where their dimension values are a closed list known here (status
 * classes, catalogued problem codes, delivery outcomes) they are graphed and alarmed as plain metrics; where
 * they are open-ended (routes, meters, job statuses and codes) the dashboard graphs them with SEARCH.
 */
export class ObservabilityStack extends Stack {
  readonly alarmTopic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityStackProps) {
    super(scope, id, props);
    const { api, table } = props;

    // CloudWatch publishes to an encrypted topic only with a customer managed key that allows it.
    const key = new Key(this, 'AlarmTopicKey', {
      enableKeyRotation: true,
      description: 'Public API v1 alarm topic encryption',
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      displayName: 'Public API v1 alarms',
      masterKey: key,
      enforceSSL: true,
    });
    const action = new SnsAction(this.alarmTopic);
    const alarm = (id: string, metric: IMetric, props: Omit<AlarmProps, 'metric'>) => {
      const created = new Alarm(this, id, {
        metric,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        ...props,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };

    const fiveMinutes = Duration.minutes(5);
    const rest = api.api;
    const serverErrors = rest.metricServerError({ period: fiveMinutes, statistic: 'Sum' });
    const requests = rest.metricCount({ period: fiveMinutes, statistic: 'Sum' });
    alarm(
      'Api5xxRate',
      new MathExpression({
        expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
        usingMetrics: { errors: serverErrors, requests },
        period: fiveMinutes,
        label: '5xx answers, % of requests',
      }),
      {
        alarmDescription:
          'More than 2% of API requests answered 5xx for 10 minutes (at least 20 requests per 5 minutes). ' +
          'Runbook: README "Operate": find a requestId of a 5xx in the access log, then its function log.',
        threshold: 2,
        evaluationPeriods: 2,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      },
    );
    alarm('ApiLatencyP99', rest.metricLatency({ period: fiveMinutes, statistic: 'p99' }), {
      alarmDescription: 'p99 latency of the API above 3 s for 15 minutes.',
      threshold: 3000,
      evaluationPeriods: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    const groupFunctions: [string, IFunction][] = Object.entries(api.groups).map(([group, g]) => [
      group,
      g.function,
    ]);
    const workers: [string, IFunction][] = [['log-shipper', api.logShipperFunction]];
    for (const [name, fn] of [...groupFunctions, ...workers]) {
      alarm(`FunctionErrors-${name}`, fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }), {
        alarmDescription: `Function ${name} failed (unhandled errors) 5 or more times in 5 minutes.`,
        threshold: 5,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }
    for (const [name, fn] of [
      ['authorizer', api.authorizerFunction] as [string, IFunction],
      ...groupFunctions,
    ]) {
      alarm(`FunctionThrottles-${name}`, fn.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }), {
        alarmDescription: `Function ${name} was throttled (account or reserved concurrency exhausted).`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }
    alarm(
      'AuthorizerLatencyP99',
      api.authorizerFunction.metricDuration({ period: fiveMinutes, statistic: 'p99' }),
      {
        alarmDescription: 'The authorizer takes over 1 s at p99: every authenticated request waits for it.',
        threshold: 1000,
        evaluationPeriods: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      },
    );

    const tableMetric = (metricName: string) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: table.tableName },
        period: fiveMinutes,
        statistic: 'Sum',
      });
    alarm('TableThrottles', tableMetric('ThrottledRequests'), {
      alarmDescription: 'DynamoDB throttled requests on the table.',
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    alarm('TableSystemErrors', tableMetric('SystemErrors'), {
      alarmDescription: 'DynamoDB returned internal errors for the table.',
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    const machines = Object.entries(props.stateMachines).filter(
      (entry): entry is [string, StateMachine] => entry[1] !== undefined,
    );
    for (const [name, machine] of machines) {
      alarm(
        `StateMachineTimedOut-${name}`,
        machine.metricTimedOut({ period: fiveMinutes, statistic: 'Sum' }),
        {
          alarmDescription: `Executions of ${name} timed out: a worker or media job hangs.`,
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        },
      );
      alarm(`StateMachineFailed-${name}`, machine.metricFailed({ period: fiveMinutes, statistic: 'Sum' }), {
        alarmDescription:
          `10 or more executions of ${name} failed in 5 minutes. A job that fails on its input ends in a ` +
          'recorded error, not a failed execution, so this means the platform is failing.',
        threshold: 10,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }

    // Business figures (EMF, written by the functions).
    const business = (metricName: string, dimensions: Record<string, string>, label?: string) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: SERVICE_NAME, ...dimensions },
        period: fiveMinutes,
        statistic: 'Sum',
        ...(label ? { label } : {}),
      });
    const search = (dimensions: string[], metricName: string) =>
      new MathExpression({
        expression: `SEARCH('{${[METRICS_NAMESPACE, 'service', ...dimensions].join(',')}} MetricName="${metricName}"', 'Sum', ${fiveMinutes.toSeconds()})`,
        usingMetrics: {},
        period: fiveMinutes,
        // Each series keeps its own label (its dimension values).
        label: '',
      });
    const requestsOfCode = (code: ErrorCode) => business(METRIC.requests, { code }, code);

    alarm('ApiInternalErrors', requestsOfCode('internal'), {
      alarmDescription:
        '5 or more requests answered 500 internal (an unexpected error in a route handler) in 5 minutes. ' +
        'Runbook: README "Operate": the dashboard\'s "Requests by route and status" names the route; its ' +
        'function log has the error with the requestId.',
      threshold: 5,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    const deliveries = Object.fromEntries(
      WEBHOOK_DELIVERY_OUTCOMES.map((outcome) => [
        outcome,
        business(METRIC.webhookDeliveries, { outcome }, outcome),
      ]),
    ) as Record<(typeof WEBHOOK_DELIVERY_OUTCOMES)[number], Metric>;
    const failedAttempts = FAILED_WEBHOOK_ATTEMPTS.join(' + ');
    alarm(
      'WebhookDeliveryFailureRate',
      new MathExpression({
        expression: `IF((delivered + ${failedAttempts}) >= 20, 100 * (${failedAttempts}) / (delivered + ${failedAttempts}), 0)`,
        usingMetrics: Object.fromEntries(
          ['delivered', ...FAILED_WEBHOOK_ATTEMPTS].map((outcome) => [
            outcome,
            deliveries[outcome as keyof typeof deliveries],
          ]),
        ),
        period: fiveMinutes,
        label: 'Webhook attempts without a 2xx answer, %',
      }),
      {
        alarmDescription:
          'More than half of the webhook delivery attempts got no 2xx answer for 15 minutes (at least 20 ' +
          'attempts per 5 minutes). Runbook: README "Operate": the outcome split on the dashboard tells a ' +
          "platform fault (network_error everywhere) from a few tenants' endpoints failing.",
        threshold: 50,
        evaluationPeriods: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      },
    );

    for (const [jobType, codes] of Object.entries(PLATFORM_JOB_FAILURE_CODES)) {
      alarm(
        `JobFailures-${jobType}`,
        new MathExpression({
          expression: codes.map((_, i) => `f${i}`).join(' + '),
          usingMetrics: Object.fromEntries(
            codes.map((code, i) => [`f${i}`, business(METRIC.jobFailures, { jobType, code })]),
          ),
          period: fiveMinutes,
          label: `${jobType} jobs failed by the platform (${codes.join(', ')})`,
        }),
        {
          alarmDescription:
            `5 or more ${jobType} jobs failed in 5 minutes with a code that means the platform failed them ` +
            `(${codes.join(', ')}). Runbook: README "Operate": the dashboard's "Job failures by code" and the ` +
            'worker log (jobId) or the execution history give the cause.',
          threshold: 5,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        },
      );
    }

    const dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    dashboard.addWidgets(
      new TextWidget({
        markdown:
          '# Public API v1\nAlarms go to the alarm topic. Runbook: README "Operate". 4xx answers are tenant ' +
          'traffic (bad input, quotas, refused credentials), 5xx are ours.',
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Requests and errors',
        left: [requests, rest.metricClientError({ period: fiveMinutes, statistic: 'Sum' }), serverErrors],
        width: 12,
      }),
      new GraphWidget({
        title: 'Latency (p50, p99)',
        left: [
          rest.metricLatency({ period: fiveMinutes, statistic: 'p50' }),
          rest.metricLatency({ period: fiveMinutes, statistic: 'p99' }),
          rest.metricIntegrationLatency({ period: fiveMinutes, statistic: 'p99' }),
        ],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Function errors',
        left: [...groupFunctions, ...workers].map(([name, fn]) =>
          fn.metricErrors({ period: fiveMinutes, statistic: 'Sum', label: name }),
        ),
        width: 12,
      }),
      new GraphWidget({
        title: 'Function duration p99',
        left: [['authorizer', api.authorizerFunction] as [string, IFunction], ...groupFunctions].map(
          ([name, fn]) => fn.metricDuration({ period: fiveMinutes, statistic: 'p99', label: name }),
        ),
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Table: throttles, errors, consumed capacity',
        left: [tableMetric('ThrottledRequests'), tableMetric('SystemErrors')],
        right: [tableMetric('ConsumedReadCapacityUnits'), tableMetric('ConsumedWriteCapacityUnits')],
        width: 12,
      }),
      new GraphWidget({
        title: 'Jobs: executions started, succeeded, failed, timed out',
        left: machines.flatMap(([name, m]) => [
          m.metricStarted({ period: fiveMinutes, statistic: 'Sum', label: `${name} started` }),
          m.metricSucceeded({ period: fiveMinutes, statistic: 'Sum', label: `${name} succeeded` }),
          m.metricFailed({ period: fiveMinutes, statistic: 'Sum', label: `${name} failed` }),
          m.metricTimedOut({ period: fiveMinutes, statistic: 'Sum', label: `${name} timed out` }),
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
          business(METRIC.requests, { statusClass }, statusClass),
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
        left: [search(['route', 'status'], METRIC.requests)],
        width: 12,
      }),
      new GraphWidget({
        title: 'Billed units per meter',
        left: [search(['meter'], METRIC.billedUnits)],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({
        title: 'Job transitions',
        left: [search(['jobType', 'to'], METRIC.jobTransitions)],
        width: 8,
      }),
      new GraphWidget({
        title: 'Job failures by code',
        left: [search(['jobType', 'code'], METRIC.jobFailures)],
        width: 8,
      }),
      new GraphWidget({
        title: 'Webhook deliveries by outcome',
        left: WEBHOOK_DELIVERY_OUTCOMES.map((outcome) => deliveries[outcome]),
        width: 8,
      }),
    );
  }
}
