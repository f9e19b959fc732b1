import type { FailedStep, StepLog } from '../../types/workflows';

/**
 * The outcome of a finished run from its step logs (the spec's semantics): a failing step never aborts the
 * run; failures of `allowFailure` steps are reported with `handled: true` and leave the run `success`
 * (`ok: true`); any other failure makes it `partial` (`ok: false`, `error.code` `workflow_steps_failed`).
 */
export interface RunOutcome {
  status: 'success' | 'partial';
  ok: boolean;
  failedSteps: FailedStep[];
  error?: { code: 'workflow_steps_failed'; message: string };
}

export const failedStepsOf = (logs: readonly StepLog[]): FailedStep[] =>
  logs
    .filter((l) => l.status === 'failed')
    .map((l) => ({
      step: l.step,
      code: l.code ?? 'internal',
      userMessage: l.userMessage ?? 'The step failed.',
      ...(l.handled ? { handled: true as const } : {}),
    }));

export const computeOutcome = (logs: readonly StepLog[]): RunOutcome => {
  const failedSteps = failedStepsOf(logs);
  const unhandled = failedSteps.filter((f) => !f.handled);
  if (unhandled.length === 0) return { status: 'success', ok: true, failedSteps };
  return {
    status: 'partial',
    ok: false,
    failedSteps,
    error: {
      code: 'workflow_steps_failed',
      message: `${unhandled.length} step(s) failed: ${unhandled.map((f) => f.step).join(', ')}.`,
    },
  };
};

/** The action that ends a run on purpose (`actions/flow-fail.ts`). */
export const FAIL_ACTION = 'actions/flow/fail';

/**
 * The failure a run's definition declared (its `actions/flow/fail` step ran), read from the logs so a run
 * resumed from its record after a crash stops there too: the run ends `failed` with the step's code.
 */
export const declaredFailureOf = (
  logs: readonly StepLog[],
): { code: string; message: string } | undefined => {
  const failing = logs.find((l) => l.action === FAIL_ACTION && l.status === 'failed');
  return failing
    ? {
        code: failing.code ?? 'workflow_run_failed',
        message: failing.userMessage ?? failing.message ?? 'The workflow failed.',
      }
    : undefined;
};
