import { CfnOutput, Duration } from 'aws-cdk-lib';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { type DataResources, WORKER_ACCESS } from '../access';
import { AppFunction } from './app-function';
import { ScheduleGroupWithRole } from './schedule-group';

/**
 * Workflow schedules (`on.schedule` of a definition) on EventBridge Scheduler: a schedule group holding one
 * schedule per scheduled workflow (created, replaced and deleted by the save path of definitions), the role
 * EventBridge Scheduler assumes to invoke the target (only from schedules of this group, and only the
 * target), and the target (`functions/workers/workflow-schedule`), which starts the due run once
 * (`WORKER_ACCESS.workflowSchedule`). `grantManagement` gives a function that saves definitions exactly the
 * schedule calls and the role hand-over, with the settings in its environment.
 */
export class WorkflowSchedules extends ScheduleGroupWithRole {
  readonly target: AppFunction;

  constructor(scope: Construct, id: string, props: { data: DataResources }) {
    super(scope, id, {
      roleDescription:
        'EventBridge Scheduler: invokes the workflow schedule target for schedules of its group',
    });
    this.target = new AppFunction(this, 'Target', {
      entry: 'functions/workers/workflow-schedule/index.ts',
      description: 'Public API v1, workflow schedule target (starts the due run)',
      access: WORKER_ACCESS.workflowSchedule,
      data: props.data,
      timeout: Duration.seconds(30),
    });
    this.invokes(this.target);
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
    return this.grantSchedules(
      grantee,
      ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
      'one schedule per scheduled workflow, named from its company and workflow when it is saved: ' +
        'the schedules of this group only',
    );
  }
}
