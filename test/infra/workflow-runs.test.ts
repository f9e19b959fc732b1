import { readdirSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { WORKFLOW_RUN_MAX_RECEIVES, workflowRunWorkBudgetMs } from '../../functions/shared/types/queues';
import { PROJECT_ROOT } from '../../lib/constructs/app-function';
import { WorkflowRuns } from '../../lib/constructs/workflow-runs';
import { logicalIdOf, synthesizeApp } from './synth';

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const jobsTemplate = Template.fromStack(built.jobs);
const runs = built.jobs.node.findAll().find((c): c is WorkflowRuns => c instanceof WorkflowRuns);
if (!runs) throw new Error('the jobs stack has no WorkflowRuns construct');

type Statement = { Action: string | string[]; Resource: unknown };
const statementsOf = (template: Template, role: Parameters<typeof logicalIdOf>[0]): Statement[] =>
  Object.values(
    template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: logicalIdOf(role) }] } }),
  ).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
        .Statement,
  );
const actionsOf = (statements: Statement[]) => new Set(statements.flatMap((s) => [s.Action].flat()));

type Resource = { Properties: Record<string, unknown> };

describe('workflow runs infrastructure', () => {
  it('drives runs by an encrypted queue with a dead-letter queue, visible again only after the lease and a work budget', () => {
    // No state machine runs workflows any more, and none calls the worker.
    expect(readdirSync(`${PROJECT_ROOT}statemachines`)).not.toContain('workflow-run.asl.json');
    for (const machine of Object.values(jobsTemplate.findResources('AWS::StepFunctions::StateMachine')))
      expect(JSON.stringify(machine)).not.toContain(logicalIdOf(runs.worker));
    const queue = jobsTemplate.findResources('AWS::SQS::Queue')[logicalIdOf(runs.queue)] as Resource;
    expect(queue.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(runs.deadLetterQueue), 'Arn'] },
        maxReceiveCount: WORKFLOW_RUN_MAX_RECEIVES,
      },
    });
    const worker = jobsTemplate.findResources('AWS::Lambda::Function')[logicalIdOf(runs.worker)] as {
      Properties: { Timeout: number; Environment: { Variables: Record<string, unknown> } };
    };
    const lease = Number(worker.Properties.Environment.Variables.WORKFLOW_RUN_LEASE_SECONDS);
    // A live holder keeps its step for a whole run of the worker; a failed message comes back once the
    // lease of the last step it started (at most a work budget after it arrived) has ended.
    expect(lease).toBeGreaterThan(worker.Properties.Timeout);
    expect(Number(queue.Properties.VisibilityTimeout)).toBeGreaterThan(
      lease + workflowRunWorkBudgetMs(lease) / 1000,
    );
    jobsTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(runs.worker) },
      EventSourceArn: { 'Fn::GetAtt': [logicalIdOf(runs.queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('lets the worker send to and receive from its own queue only', () => {
    const statements = statementsOf(jobsTemplate, runs.worker.role as never);
    const queueStatements = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('sqs:')));
    // SendMessage (the next turn) joins the event source's receive actions on the same queue.
    expect(queueStatements.map((s) => s.Resource)).toEqual([
      { 'Fn::GetAtt': [logicalIdOf(runs.queue), 'Arn'] },
    ]);
    expect([queueStatements[0]?.Action].flat().sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);
  });

  it('grants the step worker exactly what the actions call: the job machines, Polly, the cursor key, the signing keys', () => {
    const actions = actionsOf(statementsOf(jobsTemplate, runs.worker.role as never));
    for (const action of [
      'states:StartExecution',
      'polly:SynthesizeSpeech',
      'secretsmanager:GetSecretValue',
      'dynamodb:UpdateItem',
      's3:PutObject',
    ])
      expect(actions.has(action), action).toBe(true);
    expect([...actions].filter((a) => a.startsWith('mediaconvert:') || a.startsWith('transcribe:'))).toEqual(
      [],
    );
    jobsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, workflow run step worker',
      Environment: {
        Variables: Match.objectLike({
          TRANSCODE_STATE_MACHINE_ARN: Match.anyValue(),
          TRANSCRIPTION_STATE_MACHINE_ARN: Match.anyValue(),
          MESSAGE_DELIVERY_STATE_MACHINE_ARN: Match.anyValue(),
          JWT_KEYS_SECRET_ARN: Match.anyValue(),
          DYNADATA_CURSOR_SECRET_ARN: Match.anyValue(),
        }),
      },
    });
    // Async runs mint tokens (kept sealed for their later steps): the step worker reads the signing keys.
    expect(JSON.stringify(statementsOf(jobsTemplate, runs.worker.role as never))).toContain(
      logicalIdOf(built.data.jwtKeys),
    );
  });

  it('lets the workflows and MCP groups send to the workflow-run queue only, and gives them time for a sync run', () => {
    const api = built.apiTemplate;
    api.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, route group workflows',
      Timeout: 29,
      Environment: {
        Variables: Match.objectLike({
          WORKFLOW_RUN_QUEUE_URL: Match.anyValue(),
          WORKFLOW_RUN_STATE_MACHINE_ARN: Match.absent(),
        }),
      },
    });
    for (const group of [built.api.groups.workflows.function, built.api.groups.mcp.function]) {
      const statements = statementsOf(api, group.role as never);
      // A cancel is the run's final move, which the engine's next claim sees: nothing to stop.
      expect(actionsOf(statements).has('states:StopExecution')).toBe(false);
      const send = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('sqs:')));
      expect(send.map((s) => s.Action)).toEqual(['sqs:SendMessage']);
      expect(JSON.stringify(send[0]?.Resource)).toContain(logicalIdOf(runs.queue));
    }
  });
});
