import { ArnFormat, CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Effect, Grant, type IGrantable, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { type DataResources, WORKER_ACCESS } from '../access';
import { nagReference } from '../nag';
import { AppFunction } from './app-function';

/**
 * Workflow schedules (`on.schedule` of a definition) on EventBridge Scheduler: a schedule group holding one
 * schedule per scheduled workflow (created, replaced and deleted by the save path of definitions), the role
 * EventBridge Scheduler assumes to invoke the target (only from schedules of this group, and only the
 * target), and the target (`functions/workers/workflow-schedule`), which starts the due run once
 * (`WORKER_ACCESS.workflowSchedule`). `grantManagement` gives a function that saves definitions exactly the
 * schedule calls and the role hand-over, with the settings in its environment.
 */
export class WorkflowSchedules extends Construct {
  readonly group: ScheduleGroup;
  readonly target: AppFunction;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: { data: DataResources }) {
    super(scope, id);
    this.group = new ScheduleGroup(this, 'Group');
    this.target = new AppFunction(this, 'Target', {
      entry: 'functions/workers/workflow-schedule/index.ts',
      description: 'Public API v1, workflow schedule target (starts the due run)',
      access: WORKER_ACCESS.workflowSchedule,
      data: props.data,
      timeout: Duration.seconds(30),
    });
    const { account } = Stack.of(this);
    this.role = new Role(this, 'SchedulerRole', {
      description: 'EventBridge Scheduler: invokes the workflow schedule target for schedules of its group',
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': this.scheduleArns() },
        },
      }),
    });
    this.role.addToPolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.target.functionArn] }),
    );
    new CfnOutput(this, 'GroupName', {
      value: this.group.scheduleGroupName,
      description: 'Workflow schedules: the schedule group (admin --schedule-group)',
    });
    new CfnOutput(this, 'RoleArn', {
      value: this.role.roleArn,
      description: 'Workflow schedules: the role EventBridge Scheduler assumes (admin --scheduler-role-arn)',
    });
    new CfnOutput(this, 'TargetArn', {
      value: this.target.functionArn,
      description: 'Workflow schedules: the target function (admin --schedule-target-arn)',
    });
  }

  /** The schedules of the group (their names are derived from company and workflow). */
  private scheduleArns(): string {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.group.scheduleGroupName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  /** The environment of what saves definitions: where schedules go (`env().workflowSchedules`). */
  environment(): Record<string, string> {
    return {
      WORKFLOW_SCHEDULE_GROUP: this.group.scheduleGroupName,
      WORKFLOW_SCHEDULER_ROLE_ARN: this.role.roleArn,
      WORKFLOW_SCHEDULE_TARGET_ARN: this.target.functionArn,
    };
  }

  /**
   * Lets `grantee` create, replace and delete the group's schedules and hand the scheduler role to
   * EventBridge Scheduler (and to nothing else), as the save path of definitions does.
   */
  grantManagement(grantee: IGrantable): Grant {
    const schedules = this.scheduleArns();
    const grant = Grant.addToPrincipal({
      grantee,
      actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
      resourceArns: [schedules],
    });
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['iam:PassRole'],
        resources: [this.role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    const principal = grantee.grantPrincipal;
    if (Construct.isConstruct(principal)) {
      Validations.of(principal).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagReference(principal, schedules)}]`,
        reason:
          'one schedule per scheduled workflow, named from its company and workflow when it is saved: ' +
          'the schedules of this group only',
      });
    }
    return grant;
  }
}
