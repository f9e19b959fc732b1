import { readFileSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
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

type State = {
  Type: string;
  Resource?: string;
  TimeoutSeconds?: number;
  Retry?: unknown[];
  Catch?: unknown[];
};
const asl = JSON.parse(readFileSync(`${PROJECT_ROOT}statemachines/workflow-run.asl.json`, 'utf8')) as {
  States: Record<string, State>;
};

describe('workflow runs infrastructure', () => {
  it('gives every Task of workflow-run.asl.json a timeout, retries and a catch, all calling the step worker', () => {
    const tasks = Object.entries(asl.States).filter(([, s]) => s.Type === 'Task');
    expect(tasks.map(([name]) => name).sort()).toEqual(['MarkFailed', 'RunStep']);
    for (const [name, state] of tasks) {
      expect(state.TimeoutSeconds, name).toBeGreaterThan(0);
      expect(state.Retry?.length, name).toBeGreaterThan(0);
      expect(state.Catch?.length, name).toBeGreaterThan(0);
      expect(state.Resource, name).toBe(`\${WorkflowRunWorkerFunctionArn}`);
    }
  });

  it('builds the machine from the file with the worker substituted, and lets it invoke only the worker', () => {
    jobsTemplate.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionSubstitutions: {
        WorkflowRunWorkerFunctionArn: { 'Fn::GetAtt': [logicalIdOf(runs.worker), 'Arn'] },
      },
    });
    const invoke = statementsOf(jobsTemplate, runs.stateMachine.role).filter((s) =>
      [s.Action].flat().includes('lambda:InvokeFunction'),
    );
    expect(invoke).toHaveLength(1);
    expect(JSON.stringify(invoke[0]?.Resource)).toContain(logicalIdOf(runs.worker));
  });

  it('grants the step worker exactly what the actions call: the job machines, Polly, the cursor key, never the signing keys', () => {
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
          JWT_KEYS_SECRET_ARN: Match.absent(),
          DYNADATA_CURSOR_SECRET_ARN: Match.anyValue(),
        }),
      },
    });
    // Async runs mint no token: the step worker cannot read the signing keys.
    expect(JSON.stringify(statementsOf(jobsTemplate, runs.worker.role as never))).not.toContain(
      logicalIdOf(built.data.jwtKeys),
    );
  });

  it('lets the workflows group start workflow-run executions, and gives it time for a sync run', () => {
    const api = built.apiTemplate;
    api.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, route group workflows',
      Timeout: 29,
      Environment: { Variables: Match.objectLike({ WORKFLOW_RUN_STATE_MACHINE_ARN: Match.anyValue() }) },
    });
    const group = built.api.groups.workflows.function;
    expect(actionsOf(statementsOf(api, group.role as never)).has('states:StartExecution')).toBe(true);
  });
});
