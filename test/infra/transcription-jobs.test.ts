import { readFileSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/app-function';
import { TranscriptionJobs } from '../../lib/constructs/transcription-jobs';
import { logicalIdOf, synthesizeApp } from './synth';

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const jobsTemplate = Template.fromStack(built.jobs);
const transcriptions = built.jobs.node
  .findAll()
  .find((c): c is TranscriptionJobs => c instanceof TranscriptionJobs);
if (!transcriptions) throw new Error('the jobs stack has no TranscriptionJobs construct');

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
const withAction = (statements: Statement[], action: string) =>
  statements.filter((s) => [s.Action].flat().includes(action));

type State = {
  Type: string;
  Resource?: string;
  TimeoutSeconds?: number;
  Retry?: unknown[];
  Catch?: { ErrorEquals: string[]; Next: string }[];
};
const asl = JSON.parse(readFileSync(`${PROJECT_ROOT}statemachines/transcription.asl.json`, 'utf8')) as {
  TimeoutSeconds: number;
  States: Record<string, State>;
};

describe('transcription state machine (jobs stack)', () => {
  it('substitutes exactly the worker function into the ASL', () => {
    jobsTemplate.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionSubstitutions: {
        TranscriptionWorkerFunctionArn: { 'Fn::GetAtt': [logicalIdOf(transcriptions.worker), 'Arn'] },
      },
    });
  });

  it('gives every Task state TimeoutSeconds, Retry and a Catch to the failure path', () => {
    const tasks = Object.entries(asl.States).filter(([, s]) => s.Type === 'Task');
    expect(tasks.map(([n]) => n).sort()).toEqual([
      'CheckTranscription',
      'Finalize',
      'Probe',
      'RecordFailure',
      'StartTranscription',
      'StartTranscriptionIdentifyingLanguage',
    ]);
    for (const [name, task] of tasks) {
      expect(task.TimeoutSeconds, name).toBeGreaterThan(0);
      expect(task.Retry?.length, name).toBeGreaterThan(0);
      const all = task.Catch?.find((c) => c.ErrorEquals.includes('States.ALL'));
      expect(all?.Next, name).toBe(name === 'RecordFailure' ? 'Failed' : 'RecordFailure');
    }
    expect(asl.TimeoutSeconds).toBeGreaterThan(4 * 3600);
    expect(asl.States.StartTranscription?.Resource).toBe(
      'arn:aws:states:::aws-sdk:transcribe:startTranscriptionJob',
    );
    expect(asl.States.CheckTranscription?.Resource).toBe(
      'arn:aws:states:::aws-sdk:transcribe:getTranscriptionJob',
    );
  });

  it('lets the machine start and read only the platform Transcribe jobs, read tenant objects and write only transcription folders', () => {
    const statements = statementsOf(jobsTemplate, transcriptions.stateMachine.role);
    const transcribe = withAction(statements, 'transcribe:StartTranscriptionJob');
    expect(transcribe).toHaveLength(1);
    expect([transcribe[0]?.Action].flat().sort()).toEqual([
      'transcribe:GetTranscriptionJob',
      'transcribe:StartTranscriptionJob',
    ]);
    expect(JSON.stringify(transcribe[0]?.Resource)).toContain(':transcription-job/tr_*');
    const reads = withAction(statements, 's3:GetObject');
    expect(reads).toHaveLength(1);
    expect(JSON.stringify(reads[0]?.Resource)).toContain('/companies/*/uploads/*');
    expect(JSON.stringify(statements)).not.toMatch(/\/companies\/\*"/);
    const writes = withAction(statements, 's3:PutObject');
    expect(writes).toHaveLength(1);
    expect([writes[0]?.Action].flat()).toEqual(['s3:PutObject']);
    expect(JSON.stringify(writes[0]?.Resource)).toContain('/companies/*/transcriptions/*');
    const actions = actionsOf(statements);
    expect(actions.filter((a) => a === 'lambda:InvokeFunction')).toHaveLength(1);
    expect(actions.some((a) => a.startsWith('dynamodb:') || a === 's3:DeleteObject')).toBe(false);
    expect(actions).not.toContain('iam:PassRole');
  });

  it('gives the worker the table, the tenant prefix and MediaConvert Probe, and no state machine', () => {
    const role = transcriptions.worker.role;
    if (!role) throw new Error('worker without role');
    const actions = actionsOf(statementsOf(jobsTemplate, role));
    for (const a of [
      'dynamodb:UpdateItem',
      'dynamodb:GetItem',
      's3:GetObject',
      's3:PutObject',
      'mediaconvert:Probe',
    ])
      expect(actions).toContain(a);
    expect(actions.some((a) => a.startsWith('states:') || a.startsWith('transcribe:'))).toBe(false);
    jobsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, transcription worker (probe, finalize, fail)',
      Environment: {
        Variables: Match.objectLike({ TABLE_NAME: Match.anyValue(), BUCKET_NAME: Match.anyValue() }),
      },
    });
  });

  it('gives the transcriptions route group start of this machine and its ARN', () => {
    const fn = built.api.groups.transcriptions.function;
    const actions = actionsOf(statementsOf(built.apiTemplate, fn.role as never));
    expect(actions).toContain('states:StartExecution');
    built.apiTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ TRANSCRIPTION_STATE_MACHINE_ARN: Match.anyValue() }) },
    });
  });
});
