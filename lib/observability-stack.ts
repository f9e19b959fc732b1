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
import type { ApiStack } from './api-stack';

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
  }
}
