import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { MessageDelivery } from '../../lib/constructs/message-delivery';
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

  it('lets the sweep query only the undelivered-messages index partition and start only delivery executions', () => {
    const role = delivery.sweep.role;
    if (!role) throw new Error('the sweep has no role');
    const statements = statementsOf(logicalIdOf(role));
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.filter((a) => a.startsWith('dynamodb:'))).toEqual(['dynamodb:Query']);
    expect(actions.filter((a) => a.startsWith('states:'))).toEqual(['states:StartExecution']);
    const query = statements.find((s) => s.Action === 'dynamodb:Query');
    expect(JSON.stringify(query?.Condition)).toContain('MESSAGE#UNDELIVERED');
    expect(JSON.stringify(query?.Resource)).toContain('/index/gsi1');
    const start = statements.find((s) => s.Action === 'states:StartExecution');
    expect(start?.Resource).toEqual({ Ref: logicalIdOf(delivery.stateMachine) });
  });
});
