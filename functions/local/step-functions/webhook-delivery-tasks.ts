import type { TaskOverride } from './machines';

/** Local overrides of the `webhook-delivery` Task states: the real worker handler, in-process. */
const worker: TaskOverride = async (input) => {
  const { handler } = await import('../../workers/webhook-delivery/index');
  return handler(input);
};

export const tasks: Record<string, TaskOverride> = { Claim: worker, TakeNext: worker, Attempt: worker };
