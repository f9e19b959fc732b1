import { ExecutionAlreadyExistsError, startExecution } from '../../aws/step-functions';
import { workflowRunFinishedEventItem } from '../../data/events';
import { secondsToNextUtcMonth } from '../../data/usage-meters';
import {
  createWorkflowRun,
  finishWorkflowRun,
  getWorkflowRunRecord,
  saveWorkflowRunProgress,
  WorkflowRunMovedError,
  WorkflowRunQuotaError,
} from '../../data/workflow-runs';
import { env } from '../../env';
import { AppError, ValidationError } from '../../errors';
import { ulid } from '../../ids';
import { logger } from '../../logger';
import type { AuthContext } from '../../types/auth';
import type { PlanLimits } from '../../types/plans';
import type { RunCaller, RunMode, WorkflowDefinition, WorkflowRunRecord } from '../../types/workflows';
import { companyLimits } from '../company-limits';
import { validateAgainst } from '../dynadata/json-schema';
import { revokeMintedTokens } from '../tokens';
import type { ActionContext } from './actions';
import { requireWorkflow } from './definitions';
import { computeOutcome } from './outcome';
import { toPublicRun } from './public-run';
import { resolveReferences } from './references';
import { applyStepResult, newRunState, type RunState, scopeOf } from './run-state';
import { newSecretRegistry, redactSecrets } from './secrets';
import { runStep, stepBoundMs } from './step-runner';

export { getWorkflowRun, type PublicWorkflowRun, toPublicRun } from './public-run';

/**
 * Workflow runs. A run is created (and counted in `workflow_runs`) before any step runs. Sync runs execute
 * the step runner in the calling function and answer the finished run; a step starts only when its action's
 * time bound ends before the sync deadline (`WORKFLOW_SYNC_DEADLINE_MS`, below API Gateway's 29 s), otherwise
 * the progress is saved and the run continues as a `workflow-run` execution from that step (202 `{runId}`).
 * Async runs are that execution from the first step. The run item is the read model of both.
 */
export const newWorkflowRunId = () => `wr_${ulid()}`;
export const RUN_INPUT_MAX_BYTES = 32 * 1024;
const RESULT_MAX_BYTES = 128 * 1024;

export interface StartRunInput {
  companyId: string;
  workflowId: string;
  mode: RunMode;
  includeStepOutputs: boolean;
  input: Record<string, unknown>;
  callerScopes: readonly string[];
  /** The starting credential's limits (`RunCaller`), which a token minted by the run inherits. */
  caller: RunCaller;
  /** How many workflow runs deep the request that starts this run is (`workflow-hops.ts`). */
  hop: number;
}

/** What a run keeps of the credential that starts it: its root, and a token's expiry and addresses. */
export const runCallerOf = (auth: AuthContext): RunCaller =>
  auth.authMethod === 'jwt'
    ? {
        source: auth.source ?? auth.keyId,
        tokenId: auth.keyId,
        ...(auth.tokenExpiresAt === undefined ? {} : { expiresAt: auth.tokenExpiresAt }),
        ...(auth.tokenIps === undefined ? {} : { ips: auth.tokenIps }),
        ...(auth.tokenAncestors === undefined ? {} : { ancestors: auth.tokenAncestors }),
      }
    : { source: auth.source ?? auth.keyId };

/** The action context of a run: `sync` while it executes in the call that started it. */
export const contextOfRun = (run: WorkflowRunRecord, sync: boolean): ActionContext => {
  let limits: Promise<PlanLimits> | undefined;
  return {
    companyId: run.companyId,
    runId: run.runId,
    callerScopes: run.callerScopes,
    caller: run.caller,
    sync,
    hop: run.hop ?? 0,
    now: new Date(),
    limits: () => {
      limits ??= companyLimits(run.companyId);
      return limits;
    },
  };
};

/** The run's `workflow_run.finished` event: the run as its GET route shows it after the move. */
const finishedEvent = (run: WorkflowRunRecord, now: Date) =>
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
  const evaluated =
    definition.return === undefined || stopped
      ? null
      : (resolveReferences(definition.return, scopeOf(run, state)) ?? null);
  let result = redactSecrets(evaluated, state.secrets);
  let status: 'success' | 'partial' | 'failed' = stopped ? 'failed' : outcome.status;
  let error: { code: string; message?: string } | undefined = stopped ?? outcome.error;
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
  const { dropOutputs: _d, values: _v, secrets: _s, revealed, ...fields } = finished;
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
    ...(result === null || result === evaluated ? {} : { result: evaluated }),
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

/** Revokes the tokens this invocation minted (their stand-ins name them) when no answer will show them. */
const revokeUndelivered = async (run: WorkflowRunRecord, state: RunState): Promise<void> => {
  const minted = [...state.secrets.values()].flatMap((standIn) =>
    typeof standIn.jti === 'string' && typeof standIn.expiresAt === 'string'
      ? [{ jti: standIn.jti, expiresAt: standIn.expiresAt }]
      : [],
  );
  if (minted.length > 0) await revokeMintedTokens(run.companyId, minted, new Date());
};

const startEngine = async (run: WorkflowRunRecord): Promise<void> => {
  try {
    await startExecution('workflow-run', run.runId, { companyId: run.companyId, runId: run.runId });
  } catch (error) {
    if (error instanceof Error && error.name === 'ExecutionAlreadyExistsError') return;
    logger.error('workflow-run execution did not start', { runId: run.runId, error: error as Error });
    await failRun(run.companyId, run.runId, 'The run could not be started.').catch(() => undefined);
    throw new AppError('service_unavailable', 'The run could not be started; run the workflow again.');
  }
};

/**
 * Starts the engine again for an async run whose execution is gone (it did not survive a restart): the run
 * goes on from its cursor; a step caught mid-way is recorded as `step_interrupted`, never run twice
 * (`engine.ts`). The execution has the run's own name and input, so a start of the same run by someone
 * else meanwhile (a trigger handled again after the restart) is this same execution, never a second one.
 */
export const resumeWorkflowRun = async (run: WorkflowRunRecord): Promise<void> => {
  try {
    await startExecution('workflow-run', run.runId, { companyId: run.companyId, runId: run.runId });
  } catch (error) {
    if (!(error instanceof ExecutionAlreadyExistsError)) throw error;
  }
};

const createRun = async (
  input: StartRunInput,
  version: number,
  definition: WorkflowDefinition,
  now: Date,
) => {
  const problems = await validateAgainst(definition.input ?? { type: 'object' }, input.input, '/body/input');
  if (problems.length > 0)
    throw new ValidationError(problems, 'The run input does not match the workflow input schema.');
  if (Buffer.byteLength(JSON.stringify(input.input)) > RUN_INPUT_MAX_BYTES) {
    throw new ValidationError([
      { pointer: '/body/input', message: `must be at most ${RUN_INPUT_MAX_BYTES} bytes` },
    ]);
  }
  const limits = await companyLimits(input.companyId);
  const stamp = now.toISOString();
  const run: WorkflowRunRecord = {
    companyId: input.companyId,
    runId: newWorkflowRunId(),
    workflowId: input.workflowId,
    version,
    mode: input.mode,
    status: 'running',
    includeStepOutputs: input.includeStepOutputs,
    input: input.input,
    callerScopes: [...input.callerScopes],
    computeBudgetMs: limits.workflowRunComputeMs,
    caller: input.caller,
    hop: input.hop,
    cursor: 0,
    logs: [],
    outputs: {},
    files: [],
    executionTimeMs: 0,
    createdAt: stamp,
    updatedAt: stamp,
  };
  try {
    // The run keeps its input as given in memory (a sync run's steps may use a token passed in); the
    // stored copy holds no token the platform signed.
    await createWorkflowRun(
      { ...run, input: redactSecrets(run.input, newSecretRegistry()) },
      limits.workflowRunsPerMonth,
      now,
    );
  } catch (error) {
    if (!(error instanceof WorkflowRunQuotaError)) throw error;
    throw new AppError('workflow_quota_exceeded', 'The monthly workflow runs of your plan are used up.', {
      retryAfterSeconds: secondsToNextUtcMonth(now),
      extensions: { meter: 'workflow_runs', limit: limits.workflowRunsPerMonth },
    });
  }
  return run;
};

/**
 * A finished sync run: `run` as its caller sees it (with the secrets its steps produced, shown this once)
 * and `stored` as it is kept (what an idempotent replay answers).
 */
export type StartRunResult =
  | { kind: 'finished'; run: WorkflowRunRecord; stored: WorkflowRunRecord }
  | { kind: 'accepted'; runId: string };

/** Starts a run: sync runs execute here until done or until the deadline hands them to the engine. */
export const startWorkflowRun = async (input: StartRunInput): Promise<StartRunResult> => {
  const started = Date.now();
  const now = new Date(started);
  const head = await requireWorkflow(input.companyId, input.workflowId);
  const run = await createRun(input, head.version, head.definition, now);
  if (input.mode === 'async') {
    await startEngine(run);
    return { kind: 'accepted', runId: run.runId };
  }
  try {
    return await runSync(run, head.definition, started);
  } catch (error) {
    // A sync run that broke (not a step: steps never throw) is not left `running`.
    await failRun(run.companyId, run.runId, 'The run could not complete.').catch(() => undefined);
    throw error;
  }
};

const runSync = async (
  run: WorkflowRunRecord,
  definition: WorkflowDefinition,
  started: number,
): Promise<StartRunResult> => {
  const deadline = started + env().workflowSyncDeadlineMs;
  const state = newRunState();
  const ctx = contextOfRun(run, true);
  for (const step of definition.steps) {
    state.executionTimeMs = Date.now() - started;
    const stopped = computeExceeded(run, definition, state);
    if (stopped) {
      const { record, answer } = await finishRun(run, definition, state, stopped);
      return { kind: 'finished', run: answer, stored: record };
    }
    if (Date.now() + stepBoundMs(step) > deadline) {
      state.executionTimeMs = Date.now() - started;
      const handedOffAt = new Date().toISOString();
      await saveWorkflowRunProgress(run, 0, state, new Date(), { handedOffAt, mode: 'async' });
      // The caller gets 202, never the answer: a token minted so far reaches nobody, so it is revoked.
      await revokeUndelivered(run, state);
      await startEngine(run);
      logger.info('sync workflow run handed off', { runId: run.runId, cursor: state.cursor });
      return { kind: 'accepted', runId: run.runId };
    }
    await applyStepResult(run, state, await runStep(step, scopeOf(run, state), ctx, state.secrets));
  }
  state.executionTimeMs = Date.now() - started;
  const { record, answer } = await finishRun(run, definition, state);
  return { kind: 'finished', run: answer, stored: record };
};
