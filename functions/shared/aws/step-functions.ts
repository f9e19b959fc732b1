import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { env } from '../env';
import { lazy } from '../lazy';
import { tracer } from '../observability/tracer';
import type { StateMachineName } from '../types/state-machines';

/**
 * The Step Functions adapter: starts and stops executions of the platform's state machines. Machines are
 * named by what they run; their ARNs come from the environment, where only the machines a function was
 * granted are set. Locally the endpoint points at the local stack's Step Functions emulator.
 */
export type { StateMachineName } from '../types/state-machines';

/**
 * The process's one Step Functions client, built by the first call that starts or stops an execution (most
 * requests of the groups that may start one never do, so their cold starts do not build it).
 */
const client = /* @__PURE__ */ lazy(() => {
  const { region, stepFunctionsEndpoint } = env();
  return tracer.captureAWSv3Client(
    new SFNClient({
      region,
      ...(stepFunctionsEndpoint
        ? { endpoint: stepFunctionsEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    }),
  );
});

/** An execution with this name was already started: starts are idempotent by name. */
export class ExecutionAlreadyExistsError extends Error {
  constructor(readonly executionName: string) {
    super(`An execution named ${executionName} already exists`);
    this.name = 'ExecutionAlreadyExistsError';
  }
}

export const stateMachineArn = (machine: StateMachineName): string => {
  const arn = env().stateMachineArns[machine];
  if (!arn) throw new Error(`No state machine ARN for ${machine} in this function's environment`);
  return arn;
};

/** Execution names allow 1 to 80 characters of `[A-Za-z0-9_-]`. */
const EXECUTION_NAME = /^[A-Za-z0-9_-]{1,80}$/;

/** Starts an execution named `name` with `input` as its JSON input; returns the execution ARN. */
export const startExecution = async (
  machine: StateMachineName,
  name: string,
  input: unknown,
): Promise<string> => {
  if (!EXECUTION_NAME.test(name)) throw new Error(`Invalid execution name ${name}`);
  try {
    const { executionArn } = await client().send(
      new StartExecutionCommand({
        stateMachineArn: stateMachineArn(machine),
        name,
        input: JSON.stringify(input),
      }),
    );
    if (!executionArn) throw new Error('StartExecution returned no executionArn');
    return executionArn;
  } catch (error) {
    if (error instanceof ExecutionAlreadyExists) throw new ExecutionAlreadyExistsError(name);
    throw error;
  }
};

/** Stops a running execution; stopping one that has finished (or never existed) is not an error. */
export const stopExecution = async (executionArn: string, cause: string): Promise<void> => {
  try {
    await client().send(new StopExecutionCommand({ executionArn, cause: cause.slice(0, 32_768) }));
  } catch (error) {
    if (error instanceof ExecutionDoesNotExist) return;
    throw error;
  }
};
