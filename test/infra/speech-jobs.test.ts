import { readFileSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/app-function';
import { POLLY_TASK_ACTIONS, SpeechJobs } from '../../lib/constructs/speech-jobs';
import { logicalIdOf, synthesizeApp } from './synth';

const built = synthesizeApp({ bundling: false });
afterAll(() => built.cleanup());
const jobsTemplate = Template.fromStack(built.jobs);
const speechJobs = built.jobs.node.findAll().find((c): c is SpeechJobs => c instanceof SpeechJobs);
if (!speechJobs) throw new Error('the jobs stack has no SpeechJobs construct');

type Statement = { Action: string | string[]; Resource: unknown };
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
  Parameters?: Record<string, unknown>;
  Next?: string;
  Default?: string;
  Choices?: { Next: string }[];
};
const asl = JSON.parse(readFileSync(`${PROJECT_ROOT}statemachines/speech-job.asl.json`, 'utf8')) as {
  TimeoutSeconds: number;
  States: Record<string, State>;
};

describe('speech job state machine (jobs stack)', () => {
  it('substitutes exactly the worker function into the ASL', () => {
    jobsTemplate.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionSubstitutions: {
        SpeechJobWorkerFunctionArn: { 'Fn::GetAtt': [logicalIdOf(speechJobs.worker), 'Arn'] },
      },
    });
  });

  it('drives two Polly synthesis tasks (audio, sentence marks) and gives every Task a timeout, retries and a Catch', () => {
    const tasks = Object.entries(asl.States).filter(([, s]) => s.Type === 'Task');
    expect(tasks.map(([n]) => n).sort()).toEqual([
      'CheckAudioSynthesis',
      'CheckMarksSynthesis',
      'Finalize',
      'Prepare',
      'RecordFailure',
      'StartAudioSynthesis',
      'StartMarksSynthesis',
    ]);
    for (const [name, task] of tasks) {
      expect(task.TimeoutSeconds, name).toBeGreaterThan(0);
      expect(task.Retry?.length, name).toBeGreaterThan(0);
      const all = task.Catch?.find((c) => c.ErrorEquals.includes('States.ALL'));
      expect(all?.Next, name).toBe(name === 'RecordFailure' ? 'Failed' : 'RecordFailure');
    }
    const start = 'arn:aws:states:::aws-sdk:polly:startSpeechSynthesisTask';
    expect(asl.States.StartAudioSynthesis?.Resource).toBe(start);
    expect(asl.States.StartMarksSynthesis?.Resource).toBe(start);
    expect(asl.States.StartMarksSynthesis?.Parameters).toMatchObject({
      OutputFormat: 'json',
      SpeechMarkTypes: ['sentence'],
    });
    expect(asl.States.CheckAudioSynthesis?.Resource).toBe(
      'arn:aws:states:::aws-sdk:polly:getSpeechSynthesisTask',
    );
  });

  it('skips the marks task of a job without timings, and gives Finalize no marks', () => {
    expect(asl.States.StartAudioSynthesis?.Next).toBe('Timings?');
    const timings = asl.States['Timings?'] as State & { Choices: Record<string, unknown>[] };
    expect(timings.Type).toBe('Choice');
    expect(timings.Default).toBe('StartMarksSynthesis');
    expect(timings.Choices).toEqual([
      {
        And: [
          { Variable: '$.prepare.timings', IsPresent: true },
          { Variable: '$.prepare.timings', BooleanEquals: false },
        ],
        Next: 'NoMarks',
      },
    ]);
    expect(asl.States.NoMarks).toMatchObject({
      Type: 'Pass',
      Result: { outputUri: null },
      ResultPath: '$.marks',
      Next: 'ForgetText',
    });
    expect(asl.States.StartMarksSynthesis?.Next).toBe('ForgetText');
    // Once the audio is done, the marks are checked only where their task was started.
    expect(asl.States['AudioSynthesized?']?.Choices?.[0]?.Next).toBe('MarksStarted?');
    expect(asl.States['MarksStarted?']).toMatchObject({
      Type: 'Choice',
      Choices: [{ Variable: '$.marksTask', IsPresent: true, Next: 'CheckMarksSynthesis' }],
      Default: 'Finalize',
    });
    expect(asl.States.Finalize?.Parameters).toMatchObject({ 'marksUri.$': '$.marks.outputUri' });
  });

  it('polls with a doubling wait, capped, between checks', () => {
    expect(asl.States.WaitForAudio).toMatchObject({ Type: 'Wait', SecondsPath: '$.prepare.pollSeconds' });
    expect(asl.States['LongerWait?']?.Choices?.[0]).toMatchObject({
      NumericLessThan: 32,
      Next: 'DoubleWait',
    });
    expect(JSON.stringify(asl.States.DoubleWait?.Parameters)).toContain(
      'States.MathAdd($.prepare.pollSeconds, $.prepare.pollSeconds)',
    );
  });

  it('lets the machine call only Polly’s task actions and write only speech job folders', () => {
    const statements = statementsOf(jobsTemplate, speechJobs.stateMachine.role);
    const polly = withAction(statements, 'polly:StartSpeechSynthesisTask');
    expect(polly).toHaveLength(1);
    expect(polly[0]?.Resource).toBe('*');
    expect(
      actionsOf(statements)
        .filter((a) => a.startsWith('polly:'))
        .sort(),
    ).toEqual([...POLLY_TASK_ACTIONS].sort());
    const writes = withAction(statements, 's3:PutObject');
    expect(writes).toHaveLength(1);
    expect([writes[0]?.Action].flat()).toEqual(['s3:PutObject']);
    expect(JSON.stringify(writes[0]?.Resource)).toContain('/companies/*/speech-jobs/*');
    const actions = actionsOf(statements);
    expect(actions.filter((a) => a === 'lambda:InvokeFunction')).toHaveLength(1);
    expect(actions).not.toContain('s3:GetObject');
    expect(actions).not.toContain('polly:SynthesizeSpeech');
    expect(actions.some((a) => a.startsWith('dynamodb:') || a === 's3:DeleteObject')).toBe(false);
  });

  it('gives the worker the table and the speech job folders only, and no state machine or Polly', () => {
    const role = speechJobs.worker.role;
    if (!role) throw new Error('worker without role');
    const statements = statementsOf(jobsTemplate, role);
    const actions = actionsOf(statements);
    for (const a of [
      'dynamodb:UpdateItem',
      'dynamodb:GetItem',
      's3:GetObject',
      's3:PutObject',
      's3:DeleteObject',
    ])
      expect(actions).toContain(a);
    for (const s of withAction(statements, 's3:GetObject'))
      expect(JSON.stringify(s.Resource)).toContain('/companies/*/speech-jobs/*');
    expect(actions.some((a) => a.startsWith('states:') || a.startsWith('polly:'))).toBe(false);
    jobsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Public API v1, speech job worker (prepare, finalize, fail)',
    });
  });

  it('gives the speech route group start and stop of this machine and its ARN', () => {
    const fn = built.api.groups.speech.function;
    const actions = actionsOf(statementsOf(built.apiTemplate, fn.role as never));
    expect(actions).toContain('states:StartExecution');
    expect(actions).toContain('states:StopExecution');
    built.apiTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SPEECH_JOB_STATE_MACHINE_ARN: Match.anyValue() }) },
    });
  });
});
