import { readFileSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/app-function';
import { WebhookEvents } from '../../lib/constructs/webhook-events';
import { WorkflowRuns } from '../../lib/constructs/workflow-runs';
import { logicalIdOf, synthesizeApp } from './synth';

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const jobsTemplate = Template.fromStack(built.jobs);
const events = built.jobs.node.findAll().find((c): c is WebhookEvents => c instanceof WebhookEvents);
const runs = built.jobs.node.findAll().find((c): c is WorkflowRuns => c instanceof WorkflowRuns);
if (!runs) throw new Error('the jobs stack has no WorkflowRuns construct');
if (!events) throw new Error('the jobs stack has no WebhookEvents construct');

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const statementsOf = (role: Parameters<typeof logicalIdOf>[0]): Statement[] =>
  Object.values(
    jobsTemplate.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: logicalIdOf(role) }] } }),
  ).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
        .Statement,
  );
const actionsOf = (statements: Statement[]) => statements.flatMap((s) => [s.Action].flat());

describe('events to webhooks (jobs stack)', () => {
  it('streams the table with old and new images', () => {
    Template.fromStack(built.data).hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
  });

  it('feeds the dispatcher only new events and changed usage months, with partial batch responses', () => {
    jobsTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(events.dispatcher) },
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: { NewImage: { entity: { S: ['event'] } } },
            }),
          },
          {
            Pattern: JSON.stringify({
              eventName: ['MODIFY'],
              dynamodb: { Keys: { sk: { S: [{ prefix: 'M#' }] } } },
            }),
          },
        ],
      },
    });
  });

  it('lets the dispatcher read the stream and start only webhook-delivery and workflow-run executions', () => {
    const statements = statementsOf(events.dispatcher.role as never);
    const actions = actionsOf(statements);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:DescribeStream']),
    );
    const start = statements.filter((s) => [s.Action].flat().includes('states:StartExecution'));
    // Deliveries, and the runs of workflows the events trigger (`on.events`).
    expect(start.flatMap((s) => [s.Resource].flat())).toEqual(
      expect.arrayContaining([
        { Ref: logicalIdOf(events.stateMachine) },
        { Ref: logicalIdOf(runs.stateMachine) },
      ]),
    );
    expect(start.flatMap((s) => [s.Resource].flat())).toHaveLength(2);
    const stream = statements.find((s) => [s.Action].flat().includes('dynamodb:GetRecords'));
    expect(JSON.stringify(stream?.Resource)).toContain('StreamArn');
  });

  it('gives the delivery worker the table only: no executions, no bucket', () => {
    const actions = actionsOf(statementsOf(events.worker.role as never));
    expect(actions.filter((a) => a.startsWith('states:') || a.startsWith('s3:'))).toEqual([]);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']),
    );
  });

  it('runs the webhook-delivery ASL with the worker, every Task state with a timeout, retries and a catch', () => {
    jobsTemplate.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionSubstitutions: Match.objectLike({
        WebhookDeliveryWorkerFunctionArn: { 'Fn::GetAtt': [logicalIdOf(events.worker), 'Arn'] },
      }),
    });
    const asl = JSON.parse(
      readFileSync(`${PROJECT_ROOT}statemachines/webhook-delivery.asl.json`, 'utf8'),
    ) as {
      States: Record<string, { Type: string; TimeoutSeconds?: number; Retry?: unknown[]; Catch?: unknown[] }>;
    };
    const tasks = Object.entries(asl.States).filter(([, s]) => s.Type === 'Task');
    expect(tasks.map(([n]) => n).sort()).toEqual(['Attempt', 'Claim', 'TakeNext']);
    for (const [name, task] of tasks) {
      expect(task.TimeoutSeconds, name).toBeGreaterThan(0);
      expect(task.Retry?.length, name).toBeGreaterThan(0);
      expect(task.Catch?.length, name).toBeGreaterThan(0);
    }
    expect(asl.States.Backoff).toMatchObject({ Type: 'Wait', SecondsPath: '$.attempt.retryInSeconds' });
  });
});
