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
 *
 * An Express machine (`docs/decisions/*-operation-costs.md`): a delivery is a few Task runs, within 283 s at
 * worst (eight attempts and four failure-path runs all timing out at the worker's 20 s, with their backoffs), so it fits Express's 5 minutes, and is billed per request and duration, about $2 per million,
 * where Standard's transitions were $25 of the $37 a message cost. A repeated start is not de-duplicated by
 * name any more: none is made (the route and the workflow step start once), and a second execution would find
 * the message no longer `queued` and send nothing (status moves are conditional).
 */
const EXECUTION_LIMIT = Duration.minutes(5);
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
      timeout: EXECUTION_LIMIT,
      express: true,
    }).stateMachine;
  }
}
