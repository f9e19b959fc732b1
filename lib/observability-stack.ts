import { Stack, type StackProps } from 'aws-cdk-lib';
import { Alarm, type AlarmProps, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { ApiStack } from './api-stack';
import { addAlarms, type Observed } from './constructs/observability-alarms';
import { addDashboard } from './constructs/observability-dashboard';

export interface ObservabilityStackProps extends StackProps {
  api: ApiStack;
  table: ITable;
  stateMachines: Partial<Record<string, StateMachine>>;
  queues: Partial<Record<string, { queue: IQueue; deadLetters: IQueue }>>;
}

/**
 * What on-call engineers watch: one alarm topic (subscribe a pager or e-mail to it), the alarms of
 * `constructs/observability-alarms.ts` on the signals that mean users are hurt, and the dashboard of
 * `constructs/observability-dashboard.ts`, over the metrics of `constructs/observability-metrics.ts`.
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

    const observed: Observed = {
      rest: api.api,
      authorizer: api.authorizerFunction,
      groupFunctions: Object.entries(api.groups).map(([group, g]) => [group, g.function]),
      workers: [['log-shipper', api.logShipperFunction]],
      table,
      machines: Object.entries(props.stateMachines).filter(
        (entry): entry is [string, StateMachine] => entry[1] !== undefined,
      ),
      queues: Object.entries(props.queues).filter(
        (entry): entry is [string, { queue: IQueue; deadLetters: IQueue }] => entry[1] !== undefined,
      ),
      failureQueues: [['log-shipper', api.logShipperFailures]],
    };
    addAlarms(alarm, observed);
    addDashboard(this, observed);
  }
}
