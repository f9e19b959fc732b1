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
import { runStep } from './step-runner';

/**
 * The async engine's step: the `workflow-run` state machine calls this once per step until it answers
 * `done`. A step is marked started before it runs, so a retried invocation never runs it twice: a step found
 * started and not recorded is recorded as failed (`step_interrupted`). The last step's invocation also moves
 * the run to its final state.
 */
export const advanceWorkflowRun = async (input: {
  companyId: string;
  runId: string;
}): Promise<{ done: boolean }> => {
  const started = Date.now();
  const run = await getWorkflowRunRecord(input.companyId, input.runId, { consistent: true });
  if (run?.status !== 'running') return { done: true };
  const definition = await definitionOfRun(run.companyId, run.workflowId, run.version);
  const state = await stateOfRun(run);
  const step = definition.steps[run.cursor];
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
        },
        files: [],
      });
    } else if (step) {
      await beginWorkflowStep(run, run.cursor, new Date());
      await applyStepResult(run, state, await runStep(step, scopeOf(run, state), contextOfRun(run, false)));
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
