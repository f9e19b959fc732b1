import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningService } from '../dynamodb-local';
import { LOCAL_ACCOUNT, type LocalStateMachine, type TaskOverride } from './machines';

/**
 * A Step Functions endpoint on loopback for the local stack. It speaks the AWS JSON 1.0 protocol the SDK's
 * `SFNClient` uses (`StartExecution`, `StopExecution`, `DescribeExecution`) and runs each execution of the
 * very same ASL with `aws-local-stepfunctions`, every Task state overridden by its local handler. An Express
 * machine's executions are as on AWS: an ARN of their own (`…:express:<machine>:<name>:<id>`, names not
 * de-duplicated) and StopExecution refused.
 *
 * Executions live in memory: a restart of the local stack loses running executions (the job modules mark
 * what they left unfinished at start-up).
 */

type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  startDate: Date;
  stopDate?: Date;
  controller: AbortController;
  abort: () => void;
  done: Promise<void>;
  /** States entered (Step Functions Standard bills each as a state transition), when observed. */
  stateTransitions: number;
  /** Run time of each run of a Task state's local handler, by state name, when observed. */
  taskMs: Record<string, number[]>;
  /** Settles when the execution's event log has been read to its end (at once when not observed). */
  observed: Promise<void>;
}

export interface ExecutionEvent {
  executionArn: string;
  status: ExecutionStatus;
  error?: string;
  cause?: string;
  /** With `onExecutionEnd`: the states the execution entered, and each Task handler run's time (ms). */
  stateTransitions?: number;
  taskMs?: Record<string, number[]>;
  /** With `onExecutionEnd`: from start to end (Express machines are billed by it). */
  durationMs?: number;
}

export interface StepFunctionsEmulator extends RunningService {
  stateMachineArn: (name: string) => string;
  /** Serves more machines (the local stack starts the endpoint first, then loads the task overrides). */
  addMachines: (machines: LocalStateMachine[]) => void;
  /** Resolves when the execution has finished (any status); for tests and benchmarks. */
  waitForExecution: (executionArn: string) => Promise<ExecutionEvent>;
}

/** aws-local-stepfunctions uses `Promise.withResolvers` (Node 22); the local stack runs on Node 20 too. */
const polyfillWithResolvers = () => {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  P.withResolvers ??= () => {
    let resolve: unknown;
    let reject: unknown;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
};

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Finished executions kept for DescribeExecution. */
const MAX_FINISHED = 2000;

const epochSeconds = (d: Date | undefined) => (d ? d.getTime() / 1000 : undefined);

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

export const startStepFunctionsEmulator = async (options: {
  machines?: LocalStateMachine[];
  region: string;
  onExecutionEnd?: (event: ExecutionEvent) => void;
}): Promise<StepFunctionsEmulator> => {
  polyfillWithResolvers();
  const { StateMachine } = await import('aws-local-stepfunctions');
  const { region } = options;
  const arnOf = (name: string) => `arn:aws:states:${region}:${LOCAL_ACCOUNT}:stateMachine:${name}`;
  const machines = new Map<string, LocalStateMachine & { machine: InstanceType<typeof StateMachine> }>();
  const addMachines = (list: LocalStateMachine[]) => {
    for (const m of list) {
      const machine = new StateMachine(m.definition as never, { validationOptions: { checkArn: false } });
      machines.set(arnOf(m.name), { ...m, machine });
    }
  };
  addMachines(options.machines ?? []);
  const executions = new Map<string, ExecutionRecord>();
  const finished: string[] = [];

  const describe = (e: ExecutionRecord) => ({
    executionArn: e.executionArn,
    stateMachineArn: e.stateMachineArn,
    name: e.name,
    status: e.status,
    startDate: epochSeconds(e.startDate),
    stopDate: epochSeconds(e.stopDate),
    input: e.input,
    output: e.output,
    error: e.error,
    cause: e.cause,
  });

  const finish = (record: ExecutionRecord, patch: Partial<ExecutionRecord>) => {
    if (record.status !== 'RUNNING') return;
    Object.assign(record, patch, { stopDate: new Date() });
    finished.push(record.executionArn);
    while (finished.length > MAX_FINISHED) executions.delete(finished.shift() as string);
    const { onExecutionEnd } = options;
    if (!onExecutionEnd) return;
    // Told once the event log is read (a second at most), so the transition count is whole.
    const logRead = new Promise<void>((resolve) => setTimeout(resolve, 1000).unref());
    void Promise.race([record.observed, logRead]).then(() =>
      onExecutionEnd({
        stateTransitions: record.stateTransitions,
        taskMs: record.taskMs,
        durationMs: (record.stopDate?.getTime() ?? Date.now()) - record.startDate.getTime(),
        executionArn: record.executionArn,
        status: record.status,
        error: record.error,
        cause: record.cause,
      }),
    );
  };

  const startExecution = (body: { stateMachineArn?: string; name?: string; input?: string }) => {
    const entry = machines.get(body.stateMachineArn ?? '');
    if (!entry)
      throw new ServiceError('StateMachineDoesNotExist', `No state machine ${body.stateMachineArn}`);
    const name = body.name ?? randomUUID();
    // An Express execution's ARN carries an id of its own: its names are not de-duplicated.
    const executionArn = entry.express
      ? `arn:aws:states:${region}:${LOCAL_ACCOUNT}:express:${entry.name}:${name}:${randomUUID()}`
      : `arn:aws:states:${region}:${LOCAL_ACCOUNT}:execution:${entry.name}:${name}`;
    const existing = executions.get(executionArn);
    if (existing) {
      if (existing.input === (body.input ?? '{}')) return existing;
      throw new ServiceError('ExecutionAlreadyExists', `Execution ${name} already exists`);
    }
    const input = body.input ?? '{}';
    const controller = new AbortController();
    const context = { signal: controller.signal, executionArn };
    const taskMs: Record<string, number[]> = {};
    // Observed (for the cost bench) only when someone listens for execution ends.
    const timed = (state: string, task: TaskOverride) => async (i: unknown) => {
      const started = performance.now();
      try {
        return await task(i, context);
      } finally {
        taskMs[state] = [...(taskMs[state] ?? []), performance.now() - started];
      }
    };
    const overrides = Object.fromEntries(
      Object.entries(entry.tasks).map(([state, task]) => [
        state,
        (options.onExecutionEnd ? timed(state, task) : (i: unknown) => task(i, context)) as never,
      ]),
    );
    const execution = entry.machine.run(JSON.parse(input), {
      overrides: { taskResourceLocalHandlers: overrides },
      context: {
        Execution: {
          Id: executionArn,
          Input: JSON.parse(input),
          Name: name,
          StartTime: new Date().toISOString(),
        },
        StateMachine: { Id: arnOf(entry.name), Name: entry.name },
      },
    });
    const record: ExecutionRecord = {
      executionArn,
      stateMachineArn: arnOf(entry.name),
      name,
      status: 'RUNNING',
      input,
      startDate: new Date(),
      controller,
      abort: () => execution.abort(),
      done: Promise.resolve(),
      stateTransitions: 0,
      taskMs,
      observed: Promise.resolve(),
    };
    if (options.onExecutionEnd) {
      record.observed = (async () => {
        for await (const event of execution.eventLogs)
          if (event.type === 'StateEntered') record.stateTransitions++;
      })().catch(() => undefined);
    }
    record.done = execution.result.then(
      (output: unknown) => finish(record, { status: 'SUCCEEDED', output: JSON.stringify(output ?? null) }),
      (error: Error & { cause?: unknown; error?: string }) => {
        if (record.status !== 'RUNNING') return;
        if (error.name === 'ExecutionAbortedError') return finish(record, { status: 'ABORTED' });
        // A Fail state or an uncaught task error: the library wraps it; keep the innermost error name.
        const inner = (error.cause ?? error) as Error & { name?: string; message?: string };
        finish(record, {
          status: 'FAILED',
          error: typeof inner.name === 'string' ? inner.name : 'States.Runtime',
          cause: typeof inner.message === 'string' ? inner.message : String(inner),
        });
      },
    );
    executions.set(executionArn, record);
    return record;
  };

  const stopExecution = (body: { executionArn?: string; cause?: string; error?: string }) => {
    const record = executions.get(body.executionArn ?? '');
    if (!record) throw new ServiceError('ExecutionDoesNotExist', `No execution ${body.executionArn}`);
    if (record.executionArn.split(':')[5] === 'express')
      throw new ServiceError(
        'ValidationException',
        'This API action is not supported by EXPRESS state machines.',
      );
    if (record.status === 'RUNNING') {
      record.controller.abort(new Error(body.cause ?? 'stopped'));
      record.abort();
      finish(record, { status: 'ABORTED', error: body.error, cause: body.cause });
    }
    return record;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const action = String(req.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '');
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(payload));
    };
    try {
      const body = JSON.parse((await readBody(req)) || '{}');
      if (action === 'StartExecution') {
        const r = startExecution(body);
        return send(200, { executionArn: r.executionArn, startDate: epochSeconds(r.startDate) });
      }
      if (action === 'StopExecution') {
        const r = stopExecution(body);
        return send(200, { stopDate: epochSeconds(r.stopDate ?? new Date()) });
      }
      if (action === 'DescribeExecution') {
        const r = executions.get(body.executionArn ?? '');
        if (!r) throw new ServiceError('ExecutionDoesNotExist', `No execution ${body.executionArn}`);
        return send(200, describe(r));
      }
      throw new ServiceError('UnknownOperationException', `Unsupported action ${action}`);
    } catch (error) {
      if (error instanceof ServiceError) return send(400, { __type: error.type, message: error.message });
      return send(500, { __type: 'InternalFailure', message: String(error) });
    }
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    stateMachineArn: arnOf,
    addMachines,
    waitForExecution: async (executionArn) => {
      const record = executions.get(executionArn);
      if (!record) throw new Error(`No execution ${executionArn}`);
      await record.done;
      return { executionArn, status: record.status, error: record.error, cause: record.cause };
    },
    stop: async () => {
      for (const record of executions.values()) {
        if (record.status === 'RUNNING') {
          record.controller.abort(new Error('local stack stopping'));
          record.abort();
          finish(record, { status: 'ABORTED', cause: 'local stack stopping' });
        }
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
