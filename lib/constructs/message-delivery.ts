import { Duration } from 'aws-cdk-lib';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type DataResources, WORKER_ACCESS } from '../access';
import { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';

/**
 * Message delivery: the worker function (`functions/workers/message-delivery`) and the `message-delivery`
 * state machine that calls it (one delivery attempt per Task run, retried with backoff, then the failure
 * path). The worker calls webhooks on the internet, so it needs no VPC; it reaches only the table.
 */
export class MessageDelivery extends Construct {
  readonly stateMachine: StateMachine;
  readonly worker: AppFunction;

  constructor(scope: Construct, id: string, props: { data: DataResources }) {
    super(scope, id);
    this.worker = new AppFunction(this, 'Worker', {
      entry: 'functions/workers/message-delivery/index.ts',
      description: 'Public API v1, message delivery to company webhooks',
      access: WORKER_ACCESS.messageDelivery,
      data: props.data,
      timeout: Duration.seconds(20),
    });
    this.stateMachine = new AslStateMachine(this, 'Machine', {
      name: 'message-delivery',
      functions: { MessageDeliveryWorkerFunctionArn: this.worker },
      timeout: Duration.hours(1),
    }).stateMachine;
  }
}
