import type { TaskOverride } from './machines';

/** Local overrides of the `message-delivery` Task states: the real worker handler, in-process. */
const worker: TaskOverride = async (input) => {
  const { handler } = await import('../../workers/message-delivery/index');
  return handler(input);
};

export const tasks: Record<string, TaskOverride> = { Deliver: worker, MarkFailed: worker };
