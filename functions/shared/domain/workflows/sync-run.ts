import { setTimeout as sleep } from 'node:timers/promises';
import { listHandedOffRun } from '../../data/workflow-runs/entries';
import { saveWorkflowRunProgress } from '../../data/workflow-runs/progress';
import {
  getWorkflowRunRecord,
  getWorkflowRunStatus,
  WorkflowRunMovedError,
} from '../../data/workflow-runs/runs';
import { env } from '../../env';
import { AppError } from '../../errors';
import { logger } from '../../observability/logger';
import type {
  PendingAttempts,
  StepAttempt,
  WorkflowDefinition,
  WorkflowRunRecord,
} from '../../types/workflows';
import { revokeMintedTokens } from '../tokens';
import type { ActionContext } from './actions';
import { takeForEachTurn } from './for-each-loop';
import { declaredFailureOf } from './outcome';
import { computeExceeded, failRun, finishRun } from './run-finish';
import { startRunEngine } from './run-queue';
import {
  applyStepResult,
  forEachAddress,
  loadRunSecrets,
  newRunState,
  type RunState,
  scopeOf,
} from './run-state';
import { stepBoundMs } from './step-runner';
import { takeStepTurn } from './step-turn';

/**
 * A finished sync run: `run` as its caller sees it (with the secrets its steps produced, shown this once)
 * and `stored` as it is kept (what an idempotent replay answers).
 */
export type StartRunResult =
  | { kind: 'finished'; run: WorkflowRunRecord; stored: WorkflowRunRecord }
  | { kind: 'accepted'; runId: string };

/** Revokes the tokens this invocation minted (their stand-ins name them) when no answer will show them. */
const revokeUndelivered = async (run: WorkflowRunRecord, state: RunState): Promise<void> => {
  const minted = [...state.secrets.values()].flatMap((standIn) =>
    typeof standIn.jti === 'string' && typeof standIn.expiresAt === 'string'
      ? [{ jti: standIn.jti, expiresAt: standIn.expiresAt }]
      : [],
  );
  if (minted.length > 0) await revokeMintedTokens(run.companyId, minted, new Date());
};

/**
 * Hands the run to the async engine (its first message, due after `delaySeconds`); a run that cannot be
 * handed on is failed.
 */
export const startEngine = async (run: WorkflowRunRecord, delaySeconds = 0): Promise<void> => {
  try {
    await startRunEngine(run, delaySeconds);
  } catch (error) {
    logger.error('workflow-run message not sent', { runId: run.runId, error: error as Error });
    await failRun(run.companyId, run.runId, 'The run could not be started.').catch(() => undefined);
    throw new AppError('service_unavailable', 'The run could not be started; run the workflow again.');
  }
};

/** The run as stored once something else moved it (it was canceled): what the caller is answered. */
const storedRun = async (run: WorkflowRunRecord): Promise<StartRunResult> => {
  const stored = (await getWorkflowRunRecord(run.companyId, run.runId, { consistent: true })) ?? run;
  return { kind: 'finished', run: stored, stored };
};

/**
 * Runs a sync run in the call that started it. A step (or the next attempt of a step's `retry`, after its
 * wait) starts only when its action's bound ends before the deadline; otherwise the progress (with the
 * attempts so far and when the next may start) is saved and the run continues in the async engine, from
 * a `workflow-run` queue message (202). Before each step after the first the run's status is read: a run canceled meanwhile
 * stops there and its caller gets it as stored. Waiting between attempts is not execution time.
 */
export const runSync = async (
  run: WorkflowRunRecord,
  definition: WorkflowDefinition,
  started: number,
  ctx: ActionContext,
): Promise<StartRunResult> => {
  const deadline = started + env().workflowSyncDeadlineMs;
  const state = newRunState();
  await loadRunSecrets(run.companyId, definition, state);
  let waited = 0;
  // Step time beyond the call's own time: the items of a `forEach` run at once each count.
  let extra = 0;
  let attempts: StepAttempt[] = [];
  let notBefore = 0;
  const handOff = async (): Promise<StartRunResult> => {
    state.executionTimeMs = Date.now() - started - waited + extra;
    const handedOffAt = new Date().toISOString();
    const pending: PendingAttempts | undefined =
      attempts.length > 0
        ? { index: state.cursor, attempts, notBefore: new Date(notBefore).toISOString() }
        : undefined;
    await saveWorkflowRunProgress(run, 0, state, new Date(), {
      handedOffAt,
      mode: 'async',
      ...(pending ? { pending } : {}),
    });
    // Listed from now on (a sync run has no entry until it finishes or is handed off: `entries.ts`).
    await listHandedOffRun(run);
    // The caller gets 202, never the answer: a token minted so far reaches nobody, so it is revoked.
    await revokeUndelivered(run, state);
    // A retry (a step's, or a `forEach` item's) waiting for its next attempt: the message arrives when due.
    await startEngine(run, notBefore > 0 ? Math.max(0, notBefore - Date.now()) / 1000 : 0);
    logger.info('sync workflow run handed off', { runId: run.runId, cursor: state.cursor });
    return { kind: 'accepted', runId: run.runId };
  };
  try {
    const next = () => (declaredFailureOf(state.logs) ? undefined : definition.steps[state.cursor]);
    for (let step = next(); step !== undefined; step = next()) {
      state.executionTimeMs = Date.now() - started - waited + extra;
      const stopped = computeExceeded(run, definition, state);
      if (stopped) {
        const { record, answer } = await finishRun(run, definition, state, stopped);
        return { kind: 'finished', run: answer, stored: record };
      }
      if (state.cursor > 0 || notBefore > 0) {
        if ((await getWorkflowRunStatus(run.companyId, run.runId)) !== 'running') return await storedRun(run);
      }
      const wait = Math.max(0, notBefore - Date.now());
      if (Date.now() + wait + stepBoundMs(step) > deadline) return await handOff();
      if (wait > 0) {
        await sleep(wait);
        waited += wait;
      }
      if (step.forEach !== undefined) {
        const loopStarted = Date.now();
        const budgetLeft = (run.computeBudgetMs ?? Number.POSITIVE_INFINITY) - state.executionTimeMs;
        const loop = await takeForEachTurn(
          step,
          scopeOf(run, state),
          ctx,
          state.secrets,
          forEachAddress(run, step),
          (waitMs, boundMs, computeMs) => Date.now() + waitMs + boundMs <= deadline && computeMs < budgetLeft,
        );
        extra += loop.computeMs - (Date.now() - loopStarted);
        // Items left (the deadline, the compute budget, a retry's wait): decided at the top of the loop.
        notBefore = loop.kind === 'paused' ? Date.now() + loop.dueInMs : 0;
        if (loop.kind === 'done') await applyStepResult(run, state, loop.result);
        continue;
      }
      const turn = await takeStepTurn(step, scopeOf(run, state), ctx, state.secrets, attempts);
      if (turn.kind === 'retry') {
        attempts = turn.attempts;
        notBefore = Date.now() + turn.waitMs;
        continue;
      }
      attempts = [];
      notBefore = 0;
      await applyStepResult(run, state, turn.result);
    }
    state.executionTimeMs = Date.now() - started - waited + extra;
    const { record, answer } = await finishRun(run, definition, state);
    return { kind: 'finished', run: answer, stored: record };
  } catch (error) {
    if (error instanceof WorkflowRunMovedError) return storedRun(run);
    throw error;
  }
};
