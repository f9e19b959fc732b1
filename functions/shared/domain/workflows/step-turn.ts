import { StepOutcomeError } from '../../step-outcomes';
import type { StepAttempt, WorkflowStep } from '../../types/workflows';
import type { ActionContext } from './actions';
import { conditionHolds, readCondition } from './conditions';
import type { ReferenceScope } from './references';
import { retryClassesOf, retryWaitMs, shouldRetry } from './retry';
import type { SecretRegistry } from './secrets';
import { runStep, type StepResult } from './step-runner';

/**
 * One turn of a step, the same in sync runs and in the async engine: a step whose `if` is false is
 * `skipped` (output `null`, neither a failure nor a success for the outcome); otherwise one attempt runs.
 * With a `retry`, an attempt whose result is retried (`retry.ts`) answers `retry` with the attempts so far
 * and the wait before the next; the runner waits (in the call, or in the machine's `Backoff` state) and
 * comes back with those attempts. The result that ends the step carries every attempt in its log.
 */
export type StepTurn =
  | { kind: 'done'; result: StepResult }
  | { kind: 'retry'; attempts: StepAttempt[]; waitMs: number };

const httpStatusOf = (output: unknown): number | undefined =>
  typeof output === 'object' && output !== null && 'status' in output && typeof output.status === 'number'
    ? output.status
    : undefined;

const HTTP_ACTION = 'actions/http/request';

export const skippedResult = (step: WorkflowStep, now: Date): StepResult => ({
  log: {
    step: step.id,
    action: step.action,
    status: 'skipped',
    startedAt: now.toISOString(),
    durationMs: 0,
    message: 'The condition of the step is false: skipped.',
  },
  output: null,
  files: [],
});

/** A step failed before its action ran (`condition_type_mismatch`, a `forEach` that is no list): its code. */
export const notRunResult = (step: WorkflowStep, error: StepOutcomeError, now: Date): StepResult => ({
  log: {
    step: step.id,
    action: step.action,
    status: 'failed',
    startedAt: now.toISOString(),
    durationMs: 0,
    message: error.message,
    code: error.code,
    userMessage: error.message,
    ...(step.allowFailure ? { handled: true } : {}),
  },
  files: [],
});

/** Whether the step runs: its `if` holds (or it has none); a condition that cannot be decided throws. */
const conditionAllows = (step: WorkflowStep, scope: ReferenceScope): boolean =>
  step.if === undefined || conditionHolds(readCondition(step.if), scope);

/**
 * The result of a step whose `if` keeps it from running: `skipped` (false) or failed (it cannot be decided);
 * undefined when the step runs.
 */
export const conditionResult = (
  step: WorkflowStep,
  scope: ReferenceScope,
  now: Date,
): StepResult | undefined => {
  try {
    return conditionAllows(step, scope) ? undefined : skippedResult(step, now);
  } catch (error) {
    if (!(error instanceof StepOutcomeError)) throw error;
    return notRunResult(step, error, now);
  }
};

/**
 * One attempt of the step's action (of a `forEach` step: for one item, the scope holding it), and whether its
 * `retry` tries again.
 */
export const attemptTurn = async (
  step: WorkflowStep,
  scope: ReferenceScope,
  ctx: ActionContext,
  secrets: SecretRegistry,
  /** The attempts made before this one (a retry waiting). */
  previous: readonly StepAttempt[] = [],
): Promise<StepTurn> => {
  const result = await runStep(step, scope, ctx, secrets);
  if (!step.retry) return { kind: 'done', result };
  const { log } = result;
  const status = log.status === 'succeeded' ? 'succeeded' : 'failed';
  const httpStatus =
    step.action === HTTP_ACTION && status === 'succeeded' ? httpStatusOf(result.output) : result.httpStatus;
  const attempt: StepAttempt = {
    startedAt: log.startedAt,
    durationMs: log.durationMs,
    status,
    ...(log.code === undefined ? {} : { code: log.code }),
    ...(httpStatus === undefined ? {} : { httpStatus }),
  };
  const attempts = [...previous, attempt];
  const classes = retryClassesOf({ status, code: log.code, reason: result.reason, httpStatus });
  if (shouldRetry(step.retry, attempts.length, classes)) {
    return { kind: 'retry', attempts, waitMs: retryWaitMs(step.retry, attempts.length) };
  }
  return { kind: 'done', result: { ...result, log: { ...log, attempts } } };
};

/** A step's turn: its `if` decided on its first attempt, then an attempt (`attemptTurn`). */
export const takeStepTurn = async (...args: Parameters<typeof attemptTurn>): Promise<StepTurn> => {
  const [step, scope, , , previous = []] = args;
  const unrun = previous.length === 0 ? conditionResult(step, scope, new Date()) : undefined;
  return unrun ? { kind: 'done', result: unrun } : attemptTurn(...args);
};
