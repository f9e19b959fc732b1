import { workflowRunFinishedEventItem } from '../../data/events';
import {
  finishWorkflowRun,
  getWorkflowRunRecord,
  WorkflowRunMovedError,
} from '../../data/workflow-runs/runs';
import type { WorkflowDefinition, WorkflowRunRecord } from '../../types/workflows';
import { computeOutcome, declaredFailureOf } from './outcome';
import { toPublicRun } from './public-run';
import { resolveReferences } from './references';
import { type RunState, scopeOf } from './run-state';
import { redactSecrets } from './secrets';

/**
 * The moves of a run to its final state: finished by its runner (`finishRun`), stopped by its compute
 * budget, failed by the engine's failure path (`failRun`). Each is one transaction with the run's
 * `workflow_run.finished` event, conditional on the run still running.
 */
const RESULT_MAX_BYTES = 128 * 1024;

/** The run's `workflow_run.finished` event: the run as its GET route shows it after the move. */
export const finishedEvent = (run: WorkflowRunRecord, now: Date) =>
  workflowRunFinishedEventItem({ companyId: run.companyId, run: toPublicRun(run), now });

/**
 * Evaluates `return`, computes the outcome and moves the run to its final state (one transaction). Answers
 * the run as stored (secrets redacted) and as the caller of a sync run sees it (`answer`: the result and
 * inline outputs with the secrets its steps produced, shown this once).
 */
export const finishRun = async (
  run: WorkflowRunRecord,
  definition: WorkflowDefinition,
  state: RunState,
  /** Why the run stops before its last step (its compute budget is used up): it fails with this error. */
  stopped?: { code: 'workflow_compute_exceeded'; message: string },
): Promise<{ record: WorkflowRunRecord; answer: WorkflowRunRecord }> => {
  const outcome = computeOutcome(state.logs);
  // A compute budget used up, or the definition's own `actions/flow/fail` step: the run fails with it.
  const ended = stopped ?? declaredFailureOf(state.logs);
  const evaluated =
    definition.return === undefined || ended
      ? null
      : (resolveReferences(definition.return, scopeOf(run, state)) ?? null);
  let result = redactSecrets(evaluated, state.secrets);
  let status: 'success' | 'partial' | 'failed' = ended ? 'failed' : outcome.status;
  let error: { code: string; message?: string } | undefined = ended ?? outcome.error;
  if (Buffer.byteLength(JSON.stringify(result)) > RESULT_MAX_BYTES) {
    result = null;
    status = 'failed';
    error = {
      code: 'workflow_run_failed',
      message: `The evaluated return is over ${RESULT_MAX_BYTES} bytes.`,
    };
  }
  const now = new Date();
  const finished = {
    ...state,
    status,
    result,
    ...(error ? { error } : {}),
    failedSteps: outcome.failedSteps,
    dropOutputs: !run.includeStepOutputs,
  };
  const {
    dropOutputs: _d,
    values: _v,
    secrets: _s,
    vault: _vault,
    secretValues: _sv,
    revealed,
    ...fields
  } = finished;
  const record: WorkflowRunRecord = {
    ...run,
    ...fields,
    ...(run.includeStepOutputs ? {} : { outputs: {} }),
    finishedAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await finishWorkflowRun(run, finished, now, [finishedEvent(record, now)]);
  const answer: WorkflowRunRecord = {
    ...record,
    ...(result === null || result === evaluated
      ? {}
      : { result: redactSecrets(evaluated, state.vault, true) }),
    ...(run.includeStepOutputs ? { outputs: { ...record.outputs, ...revealed } } : {}),
  };
  return { record, answer };
};

/**
 * The compute budget: a run may spend `computeBudgetMs` of step time (its plan's `workflowRunComputeMs` when
 * it started). A step starts only while the run is within it; past it the run fails with
 * `workflow_compute_exceeded`, the steps not run are listed in the message, and the time used is counted.
 */
export const computeExceeded = (
  run: WorkflowRunRecord,
  definition: WorkflowDefinition,
  state: RunState,
): { code: 'workflow_compute_exceeded'; message: string } | undefined => {
  const budget = run.computeBudgetMs;
  if (budget === undefined || state.executionTimeMs < budget) return undefined;
  const left = definition.steps.slice(state.cursor).map((s) => s.id);
  return {
    code: 'workflow_compute_exceeded',
    message:
      `The run used ${state.executionTimeMs} ms of its ${budget} ms compute budget; ` +
      `not run: ${left.join(', ')}.`,
  };
};

/** Marks a run that could not complete `failed` (a timeout, an engine failure); a finished run is left alone. */
export const failRun = async (companyId: string, runId: string, message: string): Promise<void> => {
  const run = await getWorkflowRunRecord(companyId, runId, { consistent: true });
  if (run?.status !== 'running') return;
  const now = new Date();
  const error = { code: 'workflow_run_failed', message };
  const failed: WorkflowRunRecord = {
    ...run,
    status: 'failed',
    error,
    failedSteps: computeOutcome(run.logs).failedSteps,
    finishedAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  try {
    await finishWorkflowRun(
      run,
      {
        cursor: run.cursor,
        logs: run.logs,
        outputs: run.outputs,
        files: run.files,
        executionTimeMs: run.executionTimeMs,
        status: 'failed',
        error,
        failedSteps: computeOutcome(run.logs).failedSteps,
        dropOutputs: !run.includeStepOutputs,
      },
      now,
      [finishedEvent(failed, now)],
    );
  } catch (error) {
    if (!(error instanceof WorkflowRunMovedError)) throw error;
  }
};
