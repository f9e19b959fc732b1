import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type DataResources, WORKER_ACCESS } from '../access';
import { AppFunction } from './app-function';
import { AslStateMachine } from './asl-state-machine';
import { ScheduleGroupWithRole } from './schedule-group';

/**
 * The one-time schedules of messages sent later (`sendAt`, `docs/decisions/0033-*.md`): a schedule group whose
 * schedules (`at(…)`, deleted once they fire) invoke the message sweep with `{companyId, messageId}`, which
 * releases that message. What sends messages may create them (`grantScheduling`); what cancels them may
 * delete them too (`grantCancel`).
 */
export class MessageSchedules extends ScheduleGroupWithRole {
  private readonly target: IFunction;

  constructor(scope: Construct, id: string, props: { target: IFunction }) {
    super(scope, id, {
      roleDescription:
        'EventBridge Scheduler: invokes the message sweep for the scheduled messages of its group',
    });
    this.target = props.target;
    this.invokes(props.target);
  }

  /** The environment of what schedules messages (`env().messageSchedules`). */
  environment(): Record<string, string> {
    return {
      MESSAGE_SCHEDULE_GROUP: this.group.scheduleGroupName,
      MESSAGE_SCHEDULER_ROLE_ARN: this.role.roleArn,
      MESSAGE_SCHEDULE_TARGET_ARN: this.target.functionArn,
    };
  }

  /**
   * Lets `grantee` create (and replace) message schedules, with the role hand-over, and with `cancel` delete
   * them; its environment names the group.
   */
  grantScheduling(grantee: AppFunction, { cancel = false }: { cancel?: boolean } = {}): void {
    this.grantSchedules(
      grantee as IGrantable,
      [
        'scheduler:CreateSchedule',
        'scheduler:UpdateSchedule',
        ...(cancel ? (['scheduler:DeleteSchedule'] as const) : []),
      ],
      'one schedule per scheduled message, named from its company and message when it is sent: the ' +
        'schedules of this group only',
    );
    for (const [name, value] of Object.entries(this.environment())) grantee.addEnvironment(name, value);
  }
}

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
  readonly schedules: MessageSchedules;

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
    }).stateMachine;
    this.sweep = new AppFunction(this, 'Sweep', {
      entry: 'functions/workers/message-sweep/index.ts',
      description:
        'Public API v1, releases scheduled messages and restarts message deliveries that never started',
      access: WORKER_ACCESS.messageSweep,
      data: { ...props.data, stateMachines: { 'message-delivery': this.stateMachine } },
      timeout: Duration.minutes(1),
    });
    new Rule(this, 'SweepSchedule', {
      description: 'Public API v1: the message sweep, every 5 minutes',
      schedule: Schedule.rate(SWEEP_EVERY),
      targets: [new LambdaFunction(this.sweep, { retryAttempts: 2 })],
    });
    this.schedules = new MessageSchedules(this, 'Schedules', { target: this.sweep });
  }
}
