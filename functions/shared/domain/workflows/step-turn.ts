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

/** A step whose condition could not be decided (`condition_type_mismatch`): failed, its action never run. */
const undecidedResult = (step: WorkflowStep, error: StepOutcomeError, now: Date): StepResult => ({
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

export const takeStepTurn = async (
  step: WorkflowStep,
  scope: ReferenceScope,
  ctx: ActionContext,
  secrets: SecretRegistry,
  /** The attempts made before this turn (a retry waiting). */
  previous: readonly StepAttempt[] = [],
): Promise<StepTurn> => {
  if (previous.length === 0) {
    try {
      if (!conditionAllows(step, scope)) return { kind: 'done', result: skippedResult(step, new Date()) };
    } catch (error) {
      if (!(error instanceof StepOutcomeError)) throw error;
      return { kind: 'done', result: undecidedResult(step, error, new Date()) };
    }
  }
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
