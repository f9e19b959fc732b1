import type { TaskOverride } from './machines';

/** Local overrides of the `workflow-run` Task states: the real step worker, in-process. */
const worker: TaskOverride = async (input) => {
  const { handler } = await import('../../workers/workflow-run/index');
  return handler(input);
};

export const tasks: Record<string, TaskOverride> = { RunStep: worker, MarkFailed: worker };
