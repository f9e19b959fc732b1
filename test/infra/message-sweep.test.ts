import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { MessageDelivery } from '../../lib/constructs/message-delivery';
import { WorkflowRuns } from '../../lib/constructs/workflow-runs';
import { logicalIdOf, statementsOfRole, synthesizeApp } from './synth';

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const template = Template.fromStack(built.jobs);
const delivery = built.jobs.node.findAll().find((c): c is MessageDelivery => c instanceof MessageDelivery);
if (!delivery) throw new Error('the jobs stack lacks MessageDelivery');

const statementsOf = (roleLogicalId: string) => statementsOfRole(template, roleLogicalId);

describe('message sweep infrastructure', () => {
  it('invokes the sweep every 5 minutes from an EventBridge rule', () => {
    const rules = Object.values(
      template.findResources('AWS::Events::Rule', { Properties: { ScheduleExpression: 'rate(5 minutes)' } }),
    ) as { Properties: { Targets: { Arn: unknown }[] } }[];
    expect(rules).toHaveLength(1);
    expect(rules[0]?.Properties.Targets.map((t) => t.Arn)).toEqual([
      { 'Fn::GetAtt': [logicalIdOf(delivery.sweep), 'Arn'] },
    ]);
  });

  it('lets the sweep query only the undelivered and scheduled messages index partitions, release messages and start only delivery executions', () => {
    const role = delivery.sweep.role;
    if (!role) throw new Error('the sweep has no role');
    const statements = statementsOf(logicalIdOf(role));
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect([...new Set(actions.filter((a) => a.startsWith('dynamodb:')))].sort()).toEqual([
      'dynamodb:BatchGetItem',
      // A release's transaction holds the type's counter item, made from the type's record when missing.
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(actions.filter((a) => a.startsWith('states:'))).toEqual(['states:StartExecution']);
    expect(actions.filter((a) => a.startsWith('scheduler:'))).toEqual([]);
    const query = statements.find((s) => s.Action === 'dynamodb:Query');
    expect(JSON.stringify(query?.Condition)).toContain('MESSAGE#UNDELIVERED');
    expect(JSON.stringify(query?.Condition)).toContain('MESSAGE#SCHEDULED');
    // The keys-only `work` index, and `gsi1` for messages marked before it (decision 0040).
    expect(JSON.stringify(query?.Resource)).toContain('/index/work');
    expect(JSON.stringify(query?.Resource)).toContain('/index/gsi1');
    const start = statements.find((s) => s.Action === 'states:StartExecution');
    expect(start?.Resource).toEqual({ Ref: logicalIdOf(delivery.stateMachine) });
  });

  it('lets the message scheduler role invoke the sweep and nothing else, from schedules of its group only', () => {
    const { schedules } = delivery;
    expect(statementsOf(logicalIdOf(schedules.role))).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [logicalIdOf(delivery.sweep), 'Arn'] },
      },
    ]);
    const trust = JSON.stringify(
      template.toJSON().Resources[logicalIdOf(schedules.role)].Properties.AssumeRolePolicyDocument,
    );
    expect(trust).toContain(`:schedule/${built.jobs.resolve(schedules.group.scheduleGroupName)}/*`);
    expect(trust).toContain('aws:SourceAccount');
  });

  it('lets the workflow step worker create and cancel message schedules, and pass the role to the scheduler only', () => {
    const runs = built.jobs.node.findAll().find((c): c is WorkflowRuns => c instanceof WorkflowRuns);
    const role = runs?.worker.role;
    if (!role) throw new Error('no workflow step worker');
    const statements = statementsOf(logicalIdOf(role));
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.filter((a) => a.startsWith('scheduler:')).sort()).toEqual([
      'scheduler:CreateSchedule',
      'scheduler:DeleteSchedule',
      'scheduler:UpdateSchedule',
    ]);
    const pass = statements.find((s) => s.Action === 'iam:PassRole');
    expect(pass?.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    expect(pass?.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(delivery.schedules.role), 'Arn'] });
  });
});
