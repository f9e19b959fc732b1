import { AppError, ValidationError } from './errors';

/**
 * How deep a chain of workflow runs calling this API may go. A workflow's HTTP action may call the API, and
 * so start a run of a workflow (itself included) that calls it again: every request an HTTP action sends
 * carries `x-workflow-hop: h + 1`, where h is the hop of the request that started its run (absent = 0), after
 * the step's own headers so a definition can neither set nor lower it. A request deeper than
 * `MAX_WORKFLOW_HOP` is refused by the middleware chain (400 `hop_limit_exceeded`) before any work, so a
 * workflow that starts itself ends after a few runs instead of looping. The run route records the hop on
 * the run; the HTTP action reads it back from there.
 */
export const WORKFLOW_HOP_HEADER = 'x-workflow-hop';
export const MAX_WORKFLOW_HOP = 3;

/**
 * The hop of a request from its lower-cased headers: 0 without the header; a value that is not a plain
 * decimal integer is 400 `validation_failed`; one over `MAX_WORKFLOW_HOP` is 400 `hop_limit_exceeded`.
 */
export const workflowHopOf = (headers: Readonly<Record<string, string | undefined>>): number => {
  const raw = headers[WORKFLOW_HOP_HEADER];
  if (raw === undefined) return 0;
  if (!/^[0-9]{1,6}$/.test(raw.trim()))
    throw new ValidationError([
      { pointer: `/headers/${WORKFLOW_HOP_HEADER}`, message: 'must be a non-negative decimal integer' },
    ]);
  const hop = Number(raw.trim());
  if (hop > MAX_WORKFLOW_HOP)
    throw new AppError(
      'hop_limit_exceeded',
      `The request is ${hop} workflow hops deep; at most ${MAX_WORKFLOW_HOP} are allowed (a workflow calling this API in a loop).`,
      { extensions: { limit: MAX_WORKFLOW_HOP } },
    );
  return hop;
};
