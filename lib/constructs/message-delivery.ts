import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
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
/**
 * How often the message sweep (`functions/workers/message-sweep`) looks for messages still `queued` with no
 * delivery (their function died between the message's write and the start of its execution). A message is
 * restarted once it has been quiet for 6 minutes (`MESSAGE_DELIVERY_QUIET_MS`), so one whose delivery never
 * started is delivered within about 11 minutes.
 */
const SWEEP_EVERY = Duration.minutes(5);
export class MessageDelivery extends Construct {
  readonly stateMachine: StateMachine;
  readonly worker: AppFunction;
  readonly sweep: AppFunction;

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
    this.sweep = new AppFunction(this, 'Sweep', {
      entry: 'functions/workers/message-sweep/index.ts',
      description: 'Public API v1, restarts message deliveries that never started',
      access: WORKER_ACCESS.messageSweep,
      data: { ...props.data, stateMachines: { 'message-delivery': this.stateMachine } },
      timeout: Duration.minutes(1),
    });
    new Rule(this, 'SweepSchedule', {
      description: 'Public API v1: the message sweep, every 5 minutes',
      schedule: Schedule.rate(SWEEP_EVERY),
      targets: [new LambdaFunction(this.sweep, { retryAttempts: 2 })],
    });
  }
}
