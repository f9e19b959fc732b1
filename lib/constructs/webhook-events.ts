import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { USAGE_MONTH_SORT_KEY_PREFIX } from '../../functions/shared/data/keys';
import { EVENT_ENTITY } from '../../functions/shared/types/events';
import { type DataResources, WORKER_ACCESS } from '../access';
import { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';

/**
 * Events to webhooks: the table's stream → the dispatcher (`functions/workers/event-dispatcher`), which
 * queues one delivery per subscribed endpoint and starts the lane's `webhook-delivery` execution, whose
 * Task states call the delivery worker (`functions/workers/webhook-delivery`). Each holds exactly its calls
 * (`WORKER_ACCESS.eventDispatcher`, `WORKER_ACCESS.webhookDelivery`); the event source adds the stream read
 * actions on the table's stream to the dispatcher's role.
 *
 * Step Functions rather than SQS drives delivery: a lane (endpoint × resource) must have one delivery in
 * flight and wait, between attempts, up to an hour for more than a day. A Wait state holds a lane for hours
 * at no compute cost and keeps the next event of the resource behind it; SQS delays stop at 15 minutes and a
 * FIFO group blocks on visibility timeouts of at most 12 hours, with retries counted by receives. The local
 * stack already runs the same ASL in its Step Functions emulator.
 *
 * The event source filters on the records the dispatcher acts on (new events; changed usage months), so
 * other writes of the table invoke nothing; records of a failed invocation are retried from the failed
 * one (partial batch responses), split in halves on error.
 */
export class WebhookEvents extends Construct {
  readonly stateMachine: StateMachine;
  readonly worker: AppFunction;
  readonly dispatcher: AppFunction;

  constructor(scope: Construct, id: string, props: { data: DataResources }) {
    super(scope, id);
    const { data } = props;
    this.worker = new AppFunction(this, 'Worker', {
      entry: 'functions/workers/webhook-delivery/index.ts',
      description: 'Public API v1, event delivery to webhook endpoints',
      access: WORKER_ACCESS.webhookDelivery,
      data,
      timeout: Duration.seconds(30),
    });
    this.stateMachine = new AslStateMachine(this, 'Machine', {
      name: 'webhook-delivery',
      functions: { WebhookDeliveryWorkerFunctionArn: this.worker },
    }).stateMachine;

    this.dispatcher = new AppFunction(this, 'Dispatcher', {
      entry: 'functions/workers/event-dispatcher/index.ts',
      description: 'Public API v1, event dispatcher (table stream to webhook deliveries)',
      access: WORKER_ACCESS.eventDispatcher,
      data: { ...data, stateMachines: { ...data.stateMachines, 'webhook-delivery': this.stateMachine } },
      timeout: Duration.seconds(60),
    });
    this.dispatcher.addEventSource(
      new DynamoEventSource(data.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 1000,
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(EVENT_ENTITY) } } },
          }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('MODIFY'),
            dynamodb: { Keys: { sk: { S: FilterRule.beginsWith(USAGE_MONTH_SORT_KEY_PREFIX) } } },
          }),
        ],
      }),
    );
    const role = this.dispatcher.role;
    if (!role) throw new Error('the event dispatcher has no role');
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams (granted with the stream read actions by the event source) supports no ' +
        'resource-level permissions; the stream read actions are on exactly the table stream.',
    });
  }
}
