import {
  finishWorkflowRun,
  getWorkflowRunRecord,
  WorkflowRunMovedError,
} from '../../data/workflow-runs/runs';
import { AppError, NotFoundError } from '../../errors';
import type { StepLog, WorkflowRunRecord } from '../../types/workflows';
import { definitionOfRun } from './definitions';
import { computeOutcome } from './outcome';
import { type PublicWorkflowRun, toPublicRun } from './public-run';
import { finishedEvent } from './run-finish';

/**
 * `POST /v1/workflows/{id}/runs/{runId}/cancel`: an unfinished run moves to `canceled` in one transaction
 * (conditional on `running`, with its compute time, its run-list entry and its `workflow_run.finished`
 * event), keeping the steps recorded so far; a step in flight (the engine marked it started, or its `retry`
 * waits for the next attempt) is recorded as failed with `step_interrupted`, with its attempts. Its runner stops before its next step: every write of the engine is
 * conditional on `running` (the async engine claims each step conditionally, so its next message, a retry's
 * delayed one too, finds the run final and runs nothing), and a sync run reads its status before each step. A finished run answers 409
 * `workflow_run_not_cancelable`; another workflow's or company's run 404.
 */
const CANCELED = { code: 'workflow_run_canceled', message: 'The run was canceled.' };

/** The step at the cursor when it started (the engine's marker) or waits for its next attempt (`retry`). */
const interruptedStep = async (run: WorkflowRunRecord): Promise<StepLog[]> => {
  const pending = run.pendingAttempts?.index === run.cursor ? run.pendingAttempts : undefined;
  const startedAt =
    run.current?.index === run.cursor ? run.current.startedAt : pending?.attempts[0]?.startedAt;
  if (startedAt === undefined) return [];
  const step = (await definitionOfRun(run.companyId, run.workflowId, run.version)).steps[run.cursor];
  if (!step) return [];
  const message = 'The step was running when the run was canceled.';
  return [
    {
      step: step.id,
      action: step.action,
      status: 'failed',
      startedAt,
      durationMs: Math.max(0, Date.now() - Date.parse(startedAt)),
      message,
      code: 'step_interrupted',
      userMessage: message,
      ...(step.allowFailure ? { handled: true } : {}),
      ...(pending ? { attempts: pending.attempts } : {}),
    },
  ];
};

const notCancelable = (status: string) =>
  // `runStatus`: the problem's own `status` is the HTTP status.
  new AppError('workflow_run_not_cancelable', `The run is already ${status}.`, {
    extensions: { runStatus: status },
  });

export const cancelWorkflowRun = async (input: {
  companyId: string;
  workflowId: string;
  runId: string;
  now: Date;
}): Promise<PublicWorkflowRun> => {
  const run = await getWorkflowRunRecord(input.companyId, input.runId, { consistent: true });
  if (!run || run.workflowId !== input.workflowId) throw new NotFoundError('No run with this id.');
  if (run.status !== 'running') throw notCancelable(run.status);
  const logs = [...run.logs, ...(await interruptedStep(run))];
  const stamp = input.now.toISOString();
  const failedSteps = computeOutcome(logs).failedSteps;
  const canceled: WorkflowRunRecord = {
    ...run,
    status: 'canceled',
    logs,
    cursor: logs.length,
    result: null,
    error: CANCELED,
    failedSteps,
    ...(run.includeStepOutputs ? {} : { outputs: {} }),
    finishedAt: stamp,
    updatedAt: stamp,
  };
  try {
    await finishWorkflowRun(
      run,
      {
        cursor: canceled.cursor,
        logs,
        outputs: run.outputs,
        files: run.files,
        executionTimeMs: run.executionTimeMs,
        status: 'canceled',
        result: null,
        error: CANCELED,
        failedSteps,
        dropOutputs: !run.includeStepOutputs,
      },
      input.now,
      [finishedEvent(canceled, input.now)],
    );
  } catch (error) {
    if (!(error instanceof WorkflowRunMovedError)) throw error;
    // It finished (or was canceled) meanwhile.
    const moved = await getWorkflowRunRecord(input.companyId, input.runId, { consistent: true });
    if (!moved) throw new NotFoundError('No run with this id.');
    throw notCancelable(moved.status);
  }
  return toPublicRun(canceled);
};
