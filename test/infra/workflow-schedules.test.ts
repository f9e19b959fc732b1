import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../lib/app';
import { WebhookEvents } from '../../lib/constructs/webhook-events';
import { WorkflowSchedules } from '../../lib/constructs/workflow-schedules';
import { logicalIdOf, statementsOfRole, synthesizeApp, testContext } from './synth';

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const jobsTemplate = Template.fromStack(built.jobs);
const schedules = built.jobs.node
  .findAll()
  .find((c): c is WorkflowSchedules => c instanceof WorkflowSchedules);
const events = built.jobs.node.findAll().find((c): c is WebhookEvents => c instanceof WebhookEvents);
if (!schedules || !events) throw new Error('the jobs stack lacks WorkflowSchedules or WebhookEvents');

const statementsOf = statementsOfRole;

describe('workflow schedules infrastructure', () => {
  it('has one schedule group, and a scheduler role that only schedules of that group in this account may assume', () => {
    // Its own group, beside the group of scheduled messages (`message-sweep.test.ts`).
    jobsTemplate.resourceCountIs('AWS::Scheduler::ScheduleGroup', 2);
    jobsTemplate.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: { 'aws:SourceArn': Match.anyValue() },
            },
          },
        ],
      },
    });
    const trust = JSON.stringify(
      jobsTemplate.toJSON().Resources[logicalIdOf(schedules.role)].Properties.AssumeRolePolicyDocument,
    );
    expect(trust).toContain(`:schedule/${built.jobs.resolve(schedules.group.scheduleGroupName)}/*`);
  });

  it('lets the scheduler role invoke the schedule target and nothing else', () => {
    const statements = statementsOf(jobsTemplate, logicalIdOf(schedules.role));
    expect(statements).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [logicalIdOf(schedules.target), 'Arn'] },
      },
    ]);
  });

  it('lets the target and the event dispatcher hand runs to the workflow-run queue, and start no execution', () => {
    for (const fn of [schedules.target, events.dispatcher]) {
      const actions = statementsOf(jobsTemplate, logicalIdOf(fn.role as never)).flatMap((s) =>
        [s.Action].flat(),
      );
      expect(actions, fn.node.path).toContain('sqs:SendMessage');
      expect(actions, fn.node.path).not.toContain('states:StartExecution');
      expect(
        actions.filter((a) => a.startsWith('scheduler:')),
        fn.node.path,
      ).toEqual([]);
    }
    jobsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, workflow schedule target (starts the due run)',
      Environment: {
        Variables: Match.objectLike({
          WORKFLOW_RUN_QUEUE_URL: Match.anyValue(),
          WORKFLOW_RUN_STATE_MACHINE_ARN: Match.absent(),
        }),
      },
    });
  });

  it('outputs the schedule settings the operator CLI takes', () => {
    const outputs = Object.values(jobsTemplate.toJSON().Outputs as Record<string, { Description: string }>);
    for (const option of ['--schedule-group', '--scheduler-role-arn', '--schedule-target-arn'])
      expect(
        outputs.some((o) => o.Description.includes(option)),
        option,
      ).toBe(true);
  });

  it('grants a definition saver exactly the schedule calls on the group and the role hand-over to the scheduler', () => {
    // A fresh app (the one above is synthesized): a role of its jobs stack saves definitions.
    const fresh = createApp({ context: { ...testContext(), 'aws:cdk:bundling-stacks': [] } });
    const target = fresh.jobs.node
      .findAll()
      .find((c): c is WorkflowSchedules => c instanceof WorkflowSchedules);
    if (!target) throw new Error('no WorkflowSchedules');
    const saver = new Role(fresh.jobs, 'SaverTest', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    target.grantManagement(saver);
    const policy = Object.values(
      Template.fromStack(fresh.jobs).findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: logicalIdOf(saver) }] },
      }),
    )[0];
    const statements = (policy as { Properties: { PolicyDocument: { Statement: unknown[] } } }).Properties
      .PolicyDocument.Statement;
    const group = fresh.jobs.resolve(target.group.scheduleGroupName);
    expect(statements).toEqual([
      {
        Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'],
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':scheduler:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              `:schedule/${group}/*`,
            ],
          ],
        },
      },
      {
        Action: 'iam:PassRole',
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [logicalIdOf(target.role), 'Arn'] },
      },
    ]);
    expect(schedules.environment()).toMatchObject({
      WORKFLOW_SCHEDULE_GROUP: expect.any(String),
      WORKFLOW_SCHEDULER_ROLE_ARN: expect.any(String),
      WORKFLOW_SCHEDULE_TARGET_ARN: expect.any(String),
    });
  });
});
