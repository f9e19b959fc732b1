import { readFileSync } from 'node:fs';
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type StepFunctionsEmulator,
  startStepFunctionsEmulator,
} from '../../functions/local/step-functions/emulator';
import { substituteDefinition, type TaskContext } from '../../functions/local/step-functions/machines';

const region = 'us-east-1';
const seen: { input: Record<string, unknown>; ctx: TaskContext }[] = [];
let transientFailures = 0;
let emulator: StepFunctionsEmulator;
let client: SFNClient;

const work = async (input: Record<string, unknown>, ctx: TaskContext) => {
  seen.push({ input, ctx });
  if (input.value === 'fail') throw Object.assign(new Error('bad input'), { name: 'Work.Invalid' });
  if (input.value === 'transient' && transientFailures++ < 1) {
    throw Object.assign(new Error('try again'), { name: 'Work.Transient' });
  }
  if (input.value === 'slow') {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, 20_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    });
  }
  return { doubled: `${String(input.value)}${String(input.value)}` };
};

beforeAll(async () => {
  const text = readFileSync(new URL('../fixtures/statemachines/probe.asl.json', import.meta.url), 'utf8');
  emulator = await startStepFunctionsEmulator({
    region,
    machines: [
      {
        name: 'probe',
        definition: substituteDefinition(text, region, { BucketName: 'local-bucket' }),
        tasks: { Work: work },
      },
    ],
  });
  client = new SFNClient({
    region,
    endpoint: emulator.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  client?.destroy();
  await emulator?.stop();
});

const start = (name: string, input: unknown) =>
  client.send(
    new StartExecutionCommand({
      stateMachineArn: emulator.stateMachineArn('probe'),
      name,
      input: JSON.stringify(input),
    }),
  );

describe('local Step Functions emulator', () => {
  it('runs the ASL through the SDK client with substitutions, context and the task override', async () => {
    const { executionArn } = await start('ok-1', { value: 'ab' });
    expect(executionArn).toMatch(/:execution:probe:ok-1$/);
    await emulator.waitForExecution(executionArn as string);
    const described = await client.send(new DescribeExecutionCommand({ executionArn }));
    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output ?? '{}')).toEqual({ value: 'ab', work: { doubled: 'abab' } });
    const call = seen.find((s) => s.ctx.executionArn === executionArn);
    expect(call?.input).toEqual({ value: 'ab', bucket: 'local-bucket', execution: executionArn });
  });

  it('retries on the error name a task throws and catches into the Fail state', async () => {
    const retried = await start('transient-1', { value: 'transient' });
    expect((await emulator.waitForExecution(retried.executionArn as string)).status).toBe('SUCCEEDED');
    const failed = await start('fail-1', { value: 'fail' });
    const event = await emulator.waitForExecution(failed.executionArn as string);
    expect(event.status).toBe('FAILED');
    const described = await client.send(new DescribeExecutionCommand({ executionArn: failed.executionArn }));
    expect(described.status).toBe('FAILED');
  });

  it('is idempotent by name for the same input and refuses a different input', async () => {
    const first = await start('dup-1', { value: 'x' });
    const again = await start('dup-1', { value: 'x' });
    expect(again.executionArn).toBe(first.executionArn);
    await expect(start('dup-1', { value: 'y' })).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it('stops a running execution and aborts the signal its task holds', async () => {
    const { executionArn } = await start('slow-1', { value: 'slow' });
    await expect.poll(() => seen.some((s) => s.ctx.executionArn === executionArn)).toBe(true);
    const call = seen.find((s) => s.ctx.executionArn === executionArn);
    await client.send(new StopExecutionCommand({ executionArn, cause: 'canceled by the owner' }));
    expect(call?.ctx.signal.aborted).toBe(true);
    const described = await client.send(new DescribeExecutionCommand({ executionArn }));
    expect(described.status).toBe('ABORTED');
    // Stopping a finished execution is accepted and changes nothing.
    await client.send(new StopExecutionCommand({ executionArn }));
    expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('ABORTED');
  });

  it('answers unknown executions and machines with the service errors', async () => {
    await expect(
      client.send(
        new DescribeExecutionCommand({ executionArn: `${emulator.stateMachineArn('probe')}:nope` }),
      ),
    ).rejects.toBeInstanceOf(ExecutionDoesNotExist);
    await expect(
      client.send(
        new StartExecutionCommand({ stateMachineArn: emulator.stateMachineArn('missing'), input: '{}' }),
      ),
    ).rejects.toThrow(/No state machine/);
  });
});
