import {
  beginWorkflowStep,
  getWorkflowRunRecord,
  saveWorkflowRunProgress,
  WorkflowRunMovedError,
} from '../../data/workflow-runs';
import { logger } from '../../logger';
import { definitionOfRun } from './definitions';
import { applyStepResult, scopeOf, stateOfRun } from './run-state';
import { computeExceeded, contextOfRun, finishRun } from './runs';
import { takeStepTurn } from './step-turn';

/**
 * The async engine's step: the `workflow-run` state machine calls this once per step until it answers
 * `done`. A step is marked started before it runs, so a retried invocation never runs it twice: a step found
 * started and not recorded is recorded as failed (`step_interrupted`). The last step's invocation also moves
 * the run to its final state. A step's `retry` waiting for its next attempt answers `waitSeconds`: the
 * machine's `Backoff` state waits, then calls again (the attempts so far are kept on the run).
 */
export const advanceWorkflowRun = async (input: {
  companyId: string;
  runId: string;
}): Promise<{ done: boolean; waitSeconds?: number }> => {
  const started = Date.now();
  const run = await getWorkflowRunRecord(input.companyId, input.runId, { consistent: true });
  if (run?.status !== 'running') return { done: true };
  const definition = await definitionOfRun(run.companyId, run.workflowId, run.version);
  const step = definition.steps[run.cursor];
  const pending = run.pendingAttempts?.index === run.cursor ? run.pendingAttempts : undefined;
  const waitMs = pending ? Date.parse(pending.notBefore) - started : 0;
  if (step && waitMs > 0 && run.current?.index !== run.cursor)
    return { done: false, waitSeconds: Math.ceil(waitMs / 1000) };
  const state = await stateOfRun(run);
  try {
    const stopped = step ? computeExceeded(run, definition, state) : undefined;
    if (stopped) {
      await finishRun(run, definition, state, stopped);
      return { done: true };
    }
    if (step && run.current?.index === run.cursor) {
      const message = 'The step was interrupted and is not run again.';
      logger.warn('workflow step interrupted', { runId: run.runId, step: step.id });
      await applyStepResult(run, state, {
        log: {
          step: step.id,
          action: step.action,
          status: 'failed',
          startedAt: run.current.startedAt,
          durationMs: 0,
          message,
          code: 'step_interrupted',
          userMessage: message,
          ...(step.allowFailure ? { handled: true } : {}),
          ...(pending ? { attempts: pending.attempts } : {}),
        },
        files: [],
      });
    } else if (step) {
      await beginWorkflowStep(run, run.cursor, new Date());
      const turn = await takeStepTurn(
        step,
        scopeOf(run, state),
        contextOfRun(run, false),
        state.secrets,
        pending?.attempts,
      );
      if (turn.kind === 'retry') {
        state.executionTimeMs += Date.now() - started;
        const notBefore = new Date(Date.now() + turn.waitMs).toISOString();
        await saveWorkflowRunProgress(run, run.cursor, state, new Date(), {
          pending: { index: run.cursor, attempts: turn.attempts, notBefore },
        });
        return turn.waitMs > 0
          ? { done: false, waitSeconds: Math.ceil(turn.waitMs / 1000) }
          : { done: false };
      }
      await applyStepResult(run, state, turn.result);
    }
    state.executionTimeMs += Date.now() - started;
    if (state.cursor >= definition.steps.length) {
      await finishRun(run, definition, state);
      return { done: true };
    }
    await saveWorkflowRunProgress(run, run.cursor, state, new Date());
    return { done: false };
  } catch (error) {
    // Another invocation moved the run meanwhile (a retry racing a slow one): the machine reads it again.
    if (error instanceof WorkflowRunMovedError) return { done: false };
    throw error;
  }
};
