import { beginWorkflowStep, saveWorkflowRunProgress } from '../../data/workflow-runs/progress';
import { getWorkflowRunRecord, WorkflowRunMovedError } from '../../data/workflow-runs/runs';
import { env } from '../../env';
import { logger } from '../../observability/logger';
import { workflowRunWorkBudgetMs } from '../../types/queues';
import type { PendingAttempts, StepLog, WorkflowRunRecord, WorkflowStep } from '../../types/workflows';
import { findAction } from './actions';
import { definitionOfRun } from './definitions';
import { takeForEachTurn } from './for-each-loop';
import { declaredFailureOf } from './outcome';
import { type RunMessage, sendRunMessage } from './run-queue';
import { restoreRunSecrets } from './run-secrets';
import {
  applyStepResult,
  forEachAddress,
  loadRunSecrets,
  type RunState,
  scopeOf,
  stateOfRun,
} from './run-state';
import { computeExceeded, contextOfRun, finishRun } from './runs';
import { takeStepTurn } from './step-turn';

/**
 * The async engine: one message of the `workflow-run` queue moves a run on from the turn it names
 * (`run-queue.ts`), step after step, until the run finishes, a step's `retry` must wait (a message delayed
 * by the wait carries the next turn), or the message's work budget is spent (a message due at once does).
 *
 * - Each step is claimed before it runs (`beginWorkflowStep`: conditional on the run running, at the cursor,
 *   at this turn, with no step started), so a step is started at most once; recording it moves the turn on.
 *   The step a message runs right after recording one (a plain step, within the budget) is claimed by that
 *   recording write itself, under the same conditions: one write a step.
 *   A cancel moves the run out of `running`, so the next claim (or recording) fails and the engine stops.
 * - A step found started and not recorded is recorded as failed with `step_interrupted`, once its lease has
 *   ended (its holder is gone: the lease outlasts the worker's run) and never while it lasts. A `forEach` step
 *   is taken over instead: its items with a result stay, those its holder had started are interrupted
 *   (`for-each-loop.ts`), and the rest run. A loop goes on over as many turns as its items need.
 * - A message takes the run's current turn when it names that turn, when it comes back after its handling
 *   failed (the queue's visibility timeout outlasts the work budget plus the lease: whatever it left behind,
 *   a step in flight or a turn recorded with no message sent yet, is taken over), or when it is the local
 *   stack's recovery. Any other copy ends without running anything.
 *
 * Progress is recorded before the next turn's message is sent; a failure between the two brings the message
 * back, which then sends it. The step record is conditional, so two holders never both record a turn.
 */
export type TurnOutcome = 'finished' | 'waiting' | 'continued' | 'passed' | 'busy' | 'moved';

/** A message arriving less than this before the retry is due handles it as due (delays are whole seconds). */
const DUE_SLACK_MS = 1000;

const interruptedLog = (step: WorkflowStep, run: WorkflowRunRecord, pending?: PendingAttempts): StepLog => {
  const message = 'The step was interrupted and is not run again.';
  return {
    step: step.id,
    action: step.action,
    status: 'failed',
    startedAt: run.current?.startedAt ?? new Date().toISOString(),
    durationMs: 0,
    message,
    code: 'step_interrupted',
    userMessage: message,
    ...(step.allowFailure ? { handled: true } : {}),
    ...(pending ? { attempts: pending.attempts } : {}),
  };
};

/** The run as recorded after a turn that moved it to `state` (no step started, no attempts waiting). */
const recorded = (run: WorkflowRunRecord, state: RunState, turn: number): WorkflowRunRecord => {
  const { current: _c, pendingAttempts: _p, ...rest } = run;
  const { cursor, logs, outputs, files, executionTimeMs } = state;
  return {
    ...rest,
    cursor,
    logs: [...logs],
    outputs: { ...outputs },
    files: [...files],
    executionTimeMs,
    turn,
  };
};

export const runWorkflowTurns = async (
  message: RunMessage,
  options: { returning?: boolean } = {},
  clock = () => new Date(),
): Promise<TurnOutcome> => {
  const arrived = clock().getTime();
  const leaseMs = env().workflowRunLeaseSeconds * 1000;
  let run = await getWorkflowRunRecord(message.companyId, message.runId, { consistent: true });
  if (run?.status !== 'running') return 'finished';
  const inFlight = run.current !== undefined && run.current.index === run.cursor;
  if (inFlight && !message.resume && Date.parse(run.current?.startedAt ?? '') + leaseMs > arrived)
    return 'busy';
  if ((run.turn ?? 0) !== message.turn && !message.resume && !options.returning) return 'passed';
  const definition = await definitionOfRun(run.companyId, run.workflowId, run.version);
  const state = await stateOfRun(run);
  await loadRunSecrets(run.companyId, definition, state);
  // Tokens earlier turns' steps minted, for the later steps' requests.
  // Only a definition with an action that produces secrets (a minted token) has any to read back: no Query
  // on the turns of every other run.
  if (definition.steps.some((step) => findAction(step.action)?.secretFields?.length))
    await restoreRunSecrets(run, state);
  const budgetMs = workflowRunWorkBudgetMs(env().workflowRunLeaseSeconds);
  try {
    /** The step at the cursor was claimed by the write that recorded the step before it. */
    let claimed = false;
    for (let started = arrived; ; started = clock().getTime()) {
      const turn = run.turn ?? 0;
      // A run its definition failed (`actions/flow/fail`) runs no further step.
      const step = declaredFailureOf(state.logs) ? undefined : definition.steps[run.cursor];
      const stopped = step ? computeExceeded(run, definition, state) : undefined;
      if (!step || stopped) {
        await finishRun(run, definition, state, stopped);
        return 'finished';
      }
      const pending = run.pendingAttempts?.index === run.cursor ? run.pendingAttempts : undefined;
      if (step.forEach !== undefined) {
        const takeOver = run.current?.index === run.cursor;
        await beginWorkflowStep(run, run.cursor, turn, new Date(started), { takeOver });
        const budgetLeft = (run.computeBudgetMs ?? Number.POSITIVE_INFINITY) - state.executionTimeMs;
        const loop = await takeForEachTurn(
          step,
          scopeOf(run, state),
          contextOfRun(run, false),
          state.secrets,
          forEachAddress(run, step),
          (waitMs, _bound, computeMs) =>
            clock().getTime() + waitMs - arrived < budgetMs && computeMs < budgetLeft,
        );
        state.executionTimeMs += loop.computeMs;
        if (loop.kind === 'paused') {
          await saveWorkflowRunProgress(run, run.cursor, state, clock(), {
            turn: { from: turn, to: turn + 1 },
          });
          await sendRunMessage(
            { companyId: run.companyId, runId: run.runId, turn: turn + 1 },
            loop.dueInMs / 1000,
          );
          return loop.dueInMs > DUE_SLACK_MS ? 'waiting' : 'continued';
        }
        await applyStepResult(run, state, loop.result);
      } else if (run.current?.index === run.cursor) {
        logger.warn('workflow step interrupted', { runId: run.runId, step: step.id });
        await applyStepResult(run, state, { log: interruptedLog(step, run, pending), files: [] });
        state.executionTimeMs += clock().getTime() - started;
      } else {
        const waitMs = pending ? Date.parse(pending.notBefore) - started : 0;
        if (waitMs > DUE_SLACK_MS) {
          await sendRunMessage({ companyId: run.companyId, runId: run.runId, turn }, waitMs / 1000);
          return 'waiting';
        }
        if (!claimed) await beginWorkflowStep(run, run.cursor, turn, new Date(started));
        claimed = false;
        const result = await takeStepTurn(
          step,
          scopeOf(run, state),
          contextOfRun(run, false),
          state.secrets,
          pending?.attempts,
        );
        if (result.kind === 'retry') {
          state.executionTimeMs += clock().getTime() - started;
          const notBefore = new Date(clock().getTime() + result.waitMs).toISOString();
          const next = { index: run.cursor, attempts: result.attempts, notBefore };
          await saveWorkflowRunProgress(run, run.cursor, state, clock(), {
            pending: next,
            turn: { from: turn, to: turn + 1 },
          });
          await sendRunMessage(
            { companyId: run.companyId, runId: run.runId, turn: turn + 1 },
            result.waitMs / 1000,
          );
          return 'waiting';
        }
        await applyStepResult(run, state, result.result);
        state.executionTimeMs += clock().getTime() - started;
      }
      if (state.cursor >= definition.steps.length || declaredFailureOf(state.logs)) {
        await finishRun(run, definition, state);
        return 'finished';
      }
      // The next step, when this message runs it, is claimed by the same write (one write a step, not two).
      const goesOn = clock().getTime() - arrived < budgetMs;
      const next = definition.steps[state.cursor];
      const claimNext =
        goesOn &&
        next !== undefined &&
        next.forEach === undefined &&
        !computeExceeded(run, definition, state);
      const savedAt = clock();
      await saveWorkflowRunProgress(run, run.cursor, state, savedAt, {
        turn: { from: turn, to: turn + 1 },
        ...(claimNext ? { claim: { index: state.cursor, startedAt: savedAt.toISOString() } } : {}),
      });
      run = recorded(run, state, turn + 1);
      claimed = claimNext;
      if (!goesOn) {
        await sendRunMessage({ companyId: run.companyId, runId: run.runId, turn: turn + 1 });
        return 'continued';
      }
    }
  } catch (error) {
    // The run moved meanwhile: canceled, or another copy of the message took the turn.
    if (error instanceof WorkflowRunMovedError) return 'moved';
    throw error;
  }
};
