import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { afterAll, describe, expect, it } from 'vitest';
import { WebhookEvents } from '../../lib/constructs/webhook-events';
import { WorkflowSchedules } from '../../lib/constructs/workflow-schedules';
import { logicalIdOf, synthesizeApp } from './synth';

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const jobsTemplate = Template.fromStack(built.jobs);
const schedules = built.jobs.node
  .findAll()
  .find((c): c is WorkflowSchedules => c instanceof WorkflowSchedules);
const events = built.jobs.node.findAll().find((c): c is WebhookEvents => c instanceof WebhookEvents);
if (!schedules || !events) throw new Error('the jobs stack lacks WorkflowSchedules or WebhookEvents');

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const statementsOf = (template: Template, roleLogicalId: string): Statement[] =>
  Object.values(
    template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleLogicalId }] } }),
  ).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
        .Statement,
  );

describe('workflow schedules infrastructure', () => {
  it('has one schedule group, and a scheduler role that only schedules of that group in this account may assume', () => {
    jobsTemplate.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    const group = logicalIdOf(schedules.group);
    jobsTemplate.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: { 'aws:SourceArn': Match.serializedJson(Match.anyValue()) },
            },
          },
        ],
      },
    });
    const trust = JSON.stringify(
      jobsTemplate.toJSON().Resources[logicalIdOf(schedules.role)].Properties.AssumeRolePolicyDocument,
    );
    expect(trust).toContain(`{"Ref":"${group}"}`);
    expect(trust).toContain(':schedule/');
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

  it('lets the target and the event dispatcher start workflow-run executions', () => {
    for (const fn of [schedules.target, events.dispatcher]) {
      const actions = statementsOf(jobsTemplate, logicalIdOf(fn.role as never)).flatMap((s) =>
        [s.Action].flat(),
      );
      expect(actions, fn.node.path).toContain('states:StartExecution');
      expect(
        actions.filter((a) => a.startsWith('scheduler:')),
        fn.node.path,
      ).toEqual([]);
    }
    jobsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, workflow schedule target (starts the due run)',
      Environment: { Variables: Match.objectLike({ WORKFLOW_RUN_STATE_MACHINE_ARN: Match.anyValue() }) },
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
    const stack = new Stack(built.jobs, 'SaverTest');
    const saver = new Role(stack, 'Saver', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    schedules.grantManagement(saver);
    const statements = Template.fromStack(stack).toJSON().Resources;
    const policy = Object.values(statements as Record<string, { Type: string; Properties: unknown }>).find(
      (r) => r.Type === 'AWS::IAM::Policy',
    );
    const text = JSON.stringify(policy?.Properties);
    expect(text).toContain(
      '"Action":["scheduler:CreateSchedule","scheduler:UpdateSchedule","scheduler:DeleteSchedule"]',
    );
    expect(text).toContain('"Action":"iam:PassRole"');
    expect(text).toContain('"iam:PassedToService":"scheduler.amazonaws.com"');
    expect(text).not.toContain('"Resource":"*"');
    expect(schedules.environment()).toMatchObject({
      WORKFLOW_SCHEDULE_GROUP: expect.any(String),
      WORKFLOW_SCHEDULER_ROLE_ARN: expect.any(String),
      WORKFLOW_SCHEDULE_TARGET_ARN: expect.any(String),
    });
  });
});
