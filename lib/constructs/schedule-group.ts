import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import { Effect, Grant, type IGrantable, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { nagReference } from '../nag';

export type ScheduleAction =
  | 'scheduler:CreateSchedule'
  | 'scheduler:UpdateSchedule'
  | 'scheduler:DeleteSchedule';

/**
 * An EventBridge Scheduler schedule group whose schedules invoke one function: the group, and the role
 * EventBridge Scheduler assumes (only from schedules of this group in this account) to invoke that function
 * and nothing else. `grantManagement` gives what creates schedules the schedule calls on the group's
 * schedules and the hand-over of the role to EventBridge Scheduler (and to nothing else).
 */
export class ScheduleGroupWithRole extends Construct {
  readonly group: ScheduleGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: { roleDescription: string }) {
    super(scope, id);
    this.group = new ScheduleGroup(this, 'Group');
    this.role = new Role(this, 'SchedulerRole', {
      description: props.roleDescription,
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
          ArnLike: { 'aws:SourceArn': this.scheduleArns() },
        },
      }),
    });
  }

  /** The function the group's schedules invoke (the role may invoke it, nothing else). */
  protected invokes(target: IFunction): void {
    this.role.addToPolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [target.functionArn] }),
    );
  }

  /** The schedules of the group. */
  protected scheduleArns(): string {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.group.scheduleGroupName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  /**
   * Lets `grantee` make `actions` on the group's schedules and, when it creates or replaces them, hand the
   * scheduler role to EventBridge Scheduler (and to nothing else). `reason` says why its schedules are named
   * at run time (the nag acknowledgement of the wildcard).
   */
  protected grantSchedules(grantee: IGrantable, actions: readonly ScheduleAction[], reason: string): Grant {
    const schedules = this.scheduleArns();
    const grant = Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [schedules] });
    if (actions.some((a) => a !== 'scheduler:DeleteSchedule'))
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
        reason,
      });
    }
    return grant;
  }
}
