import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXPRESS_STATE_MACHINES } from '../../shared/types/state-machines';

/**
 * The state machines of `statemachines/*.asl.json` as the local stack runs them: the very same ASL, with
 * definition substitutions filled with local values, and every Task state overridden by a local handler
 * from `./<machine>-tasks.ts` (Lambda tasks → the worker handlers in-process; MediaConvert → ffmpeg; ...).
 */
export interface TaskContext {
  /** Aborts when the execution is stopped (StopExecution) or the local stack shuts down. */
  signal: AbortSignal;
  executionArn: string;
}

// biome-ignore lint/suspicious/noExplicitAny: task input is whatever the ASL passes, as for a Lambda handler.
export type TaskOverride = (input: any, ctx: TaskContext) => Promise<unknown>;

/** What a `<machine>-tasks.ts` module exports. */
export interface MachineTasksModule {
  tasks: Record<string, TaskOverride>;
  /** Local values of definition substitutions that are not function ARNs (bucket names, role ARNs...). */
  substitutions?: Record<string, string>;
}

export interface LocalStateMachine {
  name: string;
  definition: Record<string, unknown>;
  tasks: Record<string, TaskOverride>;
  /** Deployed as Express (`EXPRESS_STATE_MACHINES`): no StopExecution, no name de-duplication. */
  express?: boolean;
}

export const LOCAL_ACCOUNT = '000000000000';

const statemachinesDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'statemachines');

export const aslFiles = (dir = statemachinesDir): { name: string; file: string }[] =>
  (existsSync(dir) ? readdirSync(dir) : [])
    .filter((f) => f.endsWith('.asl.json'))
    .sort()
    .map((f) => ({ name: f.slice(0, -'.asl.json'.length), file: join(dir, f) }));

/** The local ARN of the machine a `${<Name>StateMachineArn}` placeholder names (`TranscodeAudio` → `transcode-audio`). */
const machineArnOf = (key: string, region: string) => {
  const match = /^([A-Za-z0-9]+)StateMachineArn$/.exec(key);
  const name = match?.[1]?.replace(/(?<=[a-z0-9])([A-Z])/g, '-$1').toLowerCase();
  return name && `arn:aws:states:${region}:${LOCAL_ACCOUNT}:stateMachine:${name}`;
};

/**
 * Replaces every `${Name}` placeholder of the ASL text: with `substitutions[Name]` when given, a machine's
 * local ARN for `${<Name>StateMachineArn}`, otherwise with a local Lambda function ARN named after the
 * placeholder (the Task is overridden, so it is never called).
 */
export const substituteDefinition = (
  text: string,
  region: string,
  substitutions: Record<string, string> = {},
): Record<string, unknown> =>
  JSON.parse(
    text.replace(
      /\$\{([A-Za-z0-9_]+)\}/g,
      (_, key: string) =>
        substitutions[key] ??
        machineArnOf(key, region) ??
        `arn:aws:lambda:${region}:${LOCAL_ACCOUNT}:function:${key}`,
    ),
  ) as Record<string, unknown>;

/** Names of every Task state of a definition, including those nested in Parallel branches and Map states. */
export const taskStateNames = (definition: Record<string, unknown>): string[] => {
  const names: string[] = [];
  const visit = (states: unknown) => {
    for (const [name, state] of Object.entries((states ?? {}) as Record<string, Record<string, unknown>>)) {
      if (state.Type === 'Task') names.push(name);
      for (const branch of (state.Branches ?? []) as { States?: unknown }[]) visit(branch.States);
      const processor = (state.ItemProcessor ?? state.Iterator) as { States?: unknown } | undefined;
      if (processor) visit(processor.States);
    }
  };
  visit(definition.States);
  return names;
};

const importTasks = async (machine: string): Promise<MachineTasksModule> =>
  (await import(`./${machine}-tasks.ts`)) as MachineTasksModule;

/** Loads every ASL file with its local task overrides; a Task state without an override is an error. */
export const loadLocalStateMachines = async (
  region: string,
  options: { dir?: string; tasksOf?: (machine: string) => Promise<MachineTasksModule> } = {},
): Promise<LocalStateMachine[]> => {
  const machines: LocalStateMachine[] = [];
  for (const { name, file } of aslFiles(options.dir)) {
    const module = await (options.tasksOf ?? importTasks)(name);
    const definition = substituteDefinition(readFileSync(file, 'utf8'), region, module.substitutions);
    const missing = taskStateNames(definition).filter((state) => !module.tasks[state]);
    if (missing.length > 0) {
      throw new Error(`State machine ${name}: no local override for Task state(s) ${missing.join(', ')}`);
    }
    const express = (EXPRESS_STATE_MACHINES as readonly string[]).includes(name);
    machines.push({ name, definition, tasks: module.tasks, ...(express ? { express } : {}) });
  }
  return machines;
};
