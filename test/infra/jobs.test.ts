import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ApiStack } from '../../lib/api-stack';
import { AslStateMachine } from '../../lib/constructs/asl-state-machine';
import { DataStack } from '../../lib/data-stack';
import { JobsStack } from '../../lib/jobs-stack';
import { logicalIdOf, testContext } from './synth';

const fixture = new URL('../fixtures/statemachines/probe.asl.json', import.meta.url).pathname;

/** The app's stacks with one machine made from the emulator's fixture ASL, registered as `transcode`. */
const build = () => {
  const app = new App({ context: { ...testContext(), 'aws:cdk:bundling-stacks': [] } });
  const data = new DataStack(app, 'Data');
  const resources = {
    table: data.table,
    bucket: data.bucket,
    jwtKeys: data.jwtKeys,
    jwtPublicKeys: data.jwtPublicKeys,
    cursorKey: data.cursorKey,
    workflowSecretsKey: data.workflowSecretsKey,
  };
  const jobs = new JobsStack(app, 'Jobs', {
    data: { ...resources, downloadSigner: data.downloadSigner.secret },
  });
  const worker = new LambdaFunction(jobs, 'Worker', {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('export const handler = async () => ({});'),
  });
  const machine = new AslStateMachine(jobs, 'Probe', {
    name: 'transcode',
    definitionFile: fixture,
    functions: { WorkFunctionArn: worker },
    substitutions: { BucketName: 'the-bucket' },
  });
  jobs.stateMachines.transcode = machine.stateMachine;
  const api = new ApiStack(app, 'Api', {
    data: {
      ...resources,
      stateMachines: jobs.stateMachines,
      queues: {
        'workflow-run': jobs.queues['workflow-run']?.queue,
        'webhook-delivery': jobs.queues['webhook-delivery']?.queue,
      },
      downloadSigner: data.downloadSigner.secret,
    },
  });
  return { app, jobs, api, machine, worker };
};

describe('AslStateMachine', () => {
  it('loads the ASL file with its substitutions, logging without execution data, and tracing', () => {
    const { jobs, worker } = build();
    const template = Template.fromStack(jobs);
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
      DefinitionSubstitutions: {
        WorkFunctionArn: { 'Fn::GetAtt': [logicalIdOf(worker), 'Arn'] },
        BucketName: 'the-bucket',
      },
    });
  });

  it('lets the machine invoke exactly the substituted functions', () => {
    const { jobs, machine, worker } = build();
    const role = Template.fromStack(jobs).findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: logicalIdOf(machine.stateMachine.role) }] },
    });
    const statements = Object.values(role).flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }).Properties
          .PolicyDocument.Statement,
    );
    const invoke = statements.filter((s) => JSON.stringify(s.Action).includes('lambda:InvokeFunction'));
    expect(invoke).toHaveLength(1);
    expect(JSON.stringify(invoke[0]?.Resource)).toContain(logicalIdOf(worker));
  });
});

describe('state machine grants of the route groups', () => {
  it('gives the transcodes group start and stop on its machine and the ARN in its environment', () => {
    const { api } = build();
    const template = Template.fromStack(api);
    const group = api.groups.transcodes.function;
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, route group transcodes',
      Environment: { Variables: Match.objectLike({ TRANSCODE_STATE_MACHINE_ARN: Match.anyValue() }) },
    });
    const policies = template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: logicalIdOf(group.role as never) }] },
    });
    const actions = JSON.stringify(Object.values(policies));
    expect(actions).toContain('states:StartExecution');
    expect(actions).toContain('states:StopExecution');
  });

  it('gives no other group a state machine it was not granted', () => {
    const { api } = build();
    const template = Template.fromStack(api);
    for (const group of ['company', 'usage', 'storage', 'public'] as const) {
      const policies = template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: logicalIdOf(api.groups[group].function.role as never) }] },
      });
      expect(JSON.stringify(Object.values(policies)), group).not.toContain('states:');
    }
  });

  it('leaves no unacknowledged cdk-nag finding on the machine and the grants', () => {
    const { app, worker } = build();
    Validations.of(worker).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'Test worker only.',
      },
      { id: 'AwsSolutions-L1', reason: 'Test worker only.' },
    );
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    const outdir = mkdtempSync(join(tmpdir(), 'jobs-nag-'));
    try {
      expect(() => app.synth({ force: true, validateOnSynthesis: true })).not.toThrow();
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
