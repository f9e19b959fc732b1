import { readFileSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/app-function';
import { TranscodeJobs } from '../../lib/constructs/transcode-jobs';
import { logicalIdOf, synthesizeApp } from './synth';

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const jobsTemplate = Template.fromStack(built.jobs);
const transcodes = built.jobs.node.findAll().find((c): c is TranscodeJobs => c instanceof TranscodeJobs);
if (!transcodes) throw new Error('the jobs stack has no TranscodeJobs construct');

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const statementsOf = (template: Template, role: Parameters<typeof logicalIdOf>[0]): Statement[] =>
  Object.values(
    template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: logicalIdOf(role) }] } }),
  ).flatMap(
    (p) =>
      (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
        .Statement,
  );
const actionsOf = (statements: Statement[]) => statements.flatMap((s) => [s.Action].flat());

describe('transcode state machine (jobs stack)', () => {
  it('substitutes the worker function and the MediaConvert role into the ASL', () => {
    jobsTemplate.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionSubstitutions: {
        TranscodeWorkerFunctionArn: { 'Fn::GetAtt': [logicalIdOf(transcodes.worker), 'Arn'] },
        TranscodeAudioFunctionArn: { 'Fn::GetAtt': [logicalIdOf(transcodes.audioFunction), 'Arn'] },
        MediaConvertRoleArn: { 'Fn::GetAtt': [logicalIdOf(transcodes.mediaConvertRole), 'Arn'] },
      },
    });
  });

  it('gives every Task state of the ASL explicit TimeoutSeconds, Retry and Catch', () => {
    const asl = JSON.parse(readFileSync(`${PROJECT_ROOT}statemachines/transcode.asl.json`, 'utf8')) as {
      States: Record<
        string,
        { Type: string; Resource?: string; TimeoutSeconds?: number; Retry?: unknown[]; Catch?: unknown[] }
      >;
    };
    const tasks = Object.entries(asl.States).filter(([, s]) => s.Type === 'Task');
    expect(tasks.map(([n]) => n).sort()).toEqual([
      'Finalize',
      'Probe',
      'RecordFailure',
      'Transcode',
      'TranscodeAudio',
    ]);
    for (const [, task] of tasks) {
      expect(task.TimeoutSeconds).toBeGreaterThan(0);
      expect(task.Retry?.length).toBeGreaterThan(0);
      expect(task.Catch?.length).toBeGreaterThan(0);
    }
    expect(asl.States.Transcode?.Resource).toBe('arn:aws:states:::mediaconvert:createJob.sync');
    expect(asl.States.TranscodeAudio?.Resource).toMatch(/^\$\{TranscodeAudioFunctionArn\}$/);
    // The task outlives the function's 15 minutes, so a timed-out function reports its own error first.
    expect(asl.States.TranscodeAudio?.TimeoutSeconds).toBeGreaterThan(900);
  });

  it('lets MediaConvert (and only it) assume a role limited to tenant objects', () => {
    jobsTemplate.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'mediaconvert.amazonaws.com' } })],
      }),
    });
    const statements = statementsOf(jobsTemplate, transcodes.mediaConvertRole);
    expect(actionsOf(statements).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
    // Reads sources (any stored object), writes only transcode outputs; never the whole tenant prefix.
    const writes = statements.filter((s) => actionsOf([s]).includes('s3:PutObject'));
    expect(writes.map((s) => JSON.stringify(s.Resource))).toEqual([
      expect.stringContaining('/companies/*/transcodes/*'),
    ]);
    expect(JSON.stringify(writes)).not.toContain('/uploads/');
    expect(JSON.stringify(statements)).not.toMatch(/\/companies\/\*"/);
  });

  it('lets the machine create, watch and cancel MediaConvert jobs and pass exactly the MediaConvert role', () => {
    const statements = statementsOf(jobsTemplate, transcodes.stateMachine.role);
    const actions = actionsOf(statements);
    for (const a of [
      'mediaconvert:CreateJob',
      'mediaconvert:GetJob',
      'mediaconvert:CancelJob',
      'events:PutRule',
    ])
      expect(actions).toContain(a);
    const pass = statements.find((s) => [s.Action].flat().includes('iam:PassRole'));
    expect(pass?.Resource).toEqual({ 'Fn::GetAtt': [logicalIdOf(transcodes.mediaConvertRole), 'Arn'] });
    expect(pass?.Condition).toEqual({
      StringEquals: { 'iam:PassedToService': 'mediaconvert.amazonaws.com' },
    });
    const invoked = statements
      .filter((s) => [s.Action].flat().includes('lambda:InvokeFunction'))
      .flatMap((s) => [s.Resource].flat());
    expect(JSON.stringify(invoked)).toContain(logicalIdOf(transcodes.worker));
    expect(JSON.stringify(invoked)).toContain(logicalIdOf(transcodes.audioFunction));
  });

  it('gives the worker the table, the tenant prefix and MediaConvert Probe, and no state machine', () => {
    const role = transcodes.worker.role;
    if (!role) throw new Error('worker without role');
    const actions = actionsOf(statementsOf(jobsTemplate, role));
    for (const a of ['dynamodb:UpdateItem', 'dynamodb:GetItem', 's3:GetObject', 'mediaconvert:Probe'])
      expect(actions).toContain(a);
    // MediaConvert writes the outputs with its own role; the worker only reads object heads.
    expect(actions).not.toContain('s3:PutObject');
    expect(actions.some((a) => a.startsWith('states:'))).toBe(false);
    jobsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, transcode worker (probe, finalize, fail)',
      Environment: {
        Variables: Match.objectLike({ TABLE_NAME: Match.anyValue(), BUCKET_NAME: Match.anyValue() }),
      },
    });
  });

  it('gives the transcodes route group start and stop of this machine', () => {
    const policies = statementsOf(built.apiTemplate, built.api.groups.transcodes.function.role as never);
    const actions = actionsOf(policies);
    expect(actions).toContain('states:StartExecution');
    expect(actions).toContain('states:StopExecution');
  });

  it("routes MediaConvert status updates of this machine's jobs to the worker as a progress action", () => {
    jobsTemplate.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.mediaconvert'],
        'detail-type': ['MediaConvert Job State Change'],
        detail: {
          status: ['STATUS_UPDATE'],
          userMetadata: {
            stateMachine: [{ 'Fn::GetAtt': [logicalIdOf(transcodes.stateMachine), 'Name'] }],
          },
        },
      },
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [logicalIdOf(transcodes.worker), 'Arn'] },
          InputTransformer: {
            InputPathsMap: { detail: '$.detail' },
            InputTemplate: '{"action":"progress","detail":<detail>}',
          },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
        }),
      ],
    });
    jobsTemplate.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [logicalIdOf(transcodes.worker), 'Arn'] },
      SourceArn: { 'Fn::GetAtt': [logicalIdOf(transcodes.progressRule), 'Arn'] },
    });
  });

  it('runs the audio-only presets on an x86_64 function with the ffmpeg layer, one vCPU and 15 minutes', () => {
    jobsTemplate.hasResourceProperties('AWS::Lambda::LayerVersion', {
      CompatibleArchitectures: ['x86_64'],
      Description: Match.stringLikeRegexp('ffmpeg'),
    });
    jobsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, audio-only transcodes on ffmpeg',
      Runtime: 'nodejs22.x',
      Architectures: ['x86_64'],
      // 1,769 MB is one full vCPU (ffmpeg's audio encoders use one thread); /tmp holds a 2 GiB source and its output.
      MemorySize: 1769,
      Timeout: 900,
      EphemeralStorage: { Size: 4096 },
      Layers: Match.arrayWith([{ Ref: logicalIdOf(transcodes.ffmpegLayer) }]),
    });
  });

  it('lets the ffmpeg function read sources, write transcode outputs and record progress, nothing more', () => {
    const role = transcodes.audioFunction.role;
    if (!role) throw new Error('ffmpeg function without role');
    const statements = statementsOf(jobsTemplate, role).filter(
      (s) => !actionsOf([s]).some((a) => a.startsWith('xray:') || a.startsWith('logs:')),
    );
    expect([...new Set(actionsOf(statements))].sort()).toEqual([
      'dynamodb:UpdateItem',
      's3:GetObject',
      's3:PutObject',
    ]);
    const writes = statements.filter((s) => actionsOf([s]).includes('s3:PutObject'));
    expect(writes).toHaveLength(1);
    expect(actionsOf(writes)).toEqual(['s3:PutObject']);
    expect(JSON.stringify(writes[0]?.Resource)).toContain('/companies/*/transcodes/*');
    expect(JSON.stringify(statements)).not.toMatch(/\/companies\/\*"/);
    const update = statements.find((s) => actionsOf([s]).includes('dynamodb:UpdateItem'));
    // Only the transcode partition of the table (its leading key condition).
    expect(JSON.stringify(update?.Condition)).toContain('TRANSCODE');
  });
});
