import { Duration } from 'aws-cdk-lib';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type DataResources, dataEnvironment, type FunctionAccess, grantDataAccess } from '../access';
import { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';

/** The delivery worker reads messages, contacts and the channel, and moves the message's status. */
export const MESSAGE_DELIVERY_WORKER_ACCESS: FunctionAccess = {
  table: 'readWrite',
  meter: false,
  bucket: false,
};

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
      environment: dataEnvironment(MESSAGE_DELIVERY_WORKER_ACCESS, props.data),
      timeout: Duration.seconds(20),
    });
    const role = this.worker.role;
    if (!role) throw new Error('the message delivery worker has no role');
    grantDataAccess(role, MESSAGE_DELIVERY_WORKER_ACCESS, props.data);
    this.stateMachine = new AslStateMachine(this, 'Machine', {
      name: 'message-delivery',
      functions: { MessageDeliveryWorkerFunctionArn: this.worker },
      timeout: Duration.hours(1),
    }).stateMachine;
  }
}
