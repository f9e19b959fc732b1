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
