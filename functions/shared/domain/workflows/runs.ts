import { secondsToNextUtcMonth } from '../../data/usage-meters';
import {
  createWorkflowRun,
  getWorkflowRunRecord,
  WorkflowRunQuotaError,
} from '../../data/workflow-runs/runs';
import { getWorkflowVersion } from '../../data/workflows';
import { AppError, NotFoundError, ValidationError } from '../../errors';
import { ulid } from '../../ids';
import type { AuthContext } from '../../types/auth';
import type { PlanLimits } from '../../types/plans';
import type { RunTrigger } from '../../types/workflow-triggers';
import type { RunCaller, RunMode, WorkflowDefinition, WorkflowRunRecord } from '../../types/workflows';
import { companyLimits } from '../company-limits';
import { validateAgainst } from '../dynadata/json-schema';
import type { ActionContext } from './actions';
import { requireWorkflow } from './definitions';
import { failRun } from './run-finish';
import { resumeRunEngine } from './run-queue';
import { newSecretRegistry, redactSecrets } from './secrets';
import { runSync, type StartRunResult, startEngine } from './sync-run';

export { getWorkflowRun, toPublicRun } from './public-run';
export { computeExceeded, failRun, finishRun } from './run-finish';
export type { StartRunResult } from './sync-run';

/**
 * Workflow runs. A run is created (and counted in `workflow_runs`) before any step runs. Sync runs execute
 * the step runner in the calling function and answer the finished run; a step starts only when its action's
 * time bound ends before the sync deadline (`WORKFLOW_SYNC_DEADLINE_MS`, below API Gateway's 29 s), otherwise
 * the progress is saved and the run continues in the async engine from that step (202 `{runId}`), driven
 * by `workflow-run` queue messages (`engine.ts`). Async runs are driven so from the first step. The run item is the read model of both.
 */
export const newWorkflowRunId = () => `wr_${ulid()}`;
export const RUN_INPUT_MAX_BYTES = 32 * 1024;

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
  /** False where the function holds no signing key (the MCP server): a JWT step fails instead of minting. */
  mints?: boolean;
  /** The saved version to run (a re-run of an earlier run); the current one when absent. */
  version?: number;
  /** What starts the run when it is not a plain API call (a re-run). */
  trigger?: RunTrigger;
}

/** What a run keeps of the credential that starts it: its root, and its expiry and addresses (a token's or a key's). */
export const runCallerOf = (auth: AuthContext): RunCaller =>
  auth.authMethod === 'jwt'
    ? {
        source: auth.source ?? auth.keyId,
        tokenId: auth.keyId,
        ...(auth.tokenExpiresAt === undefined ? {} : { expiresAt: auth.tokenExpiresAt }),
        ...(auth.tokenIps === undefined ? {} : { ips: auth.tokenIps }),
        ...(auth.tokenAncestors === undefined ? {} : { ancestors: auth.tokenAncestors }),
      }
    : {
        source: auth.source ?? auth.keyId,
        ...(auth.tokenExpiresAt === undefined ? {} : { expiresAt: auth.tokenExpiresAt }),
        ...(auth.tokenIps === undefined ? {} : { ips: auth.tokenIps }),
      };

/**
 * The action context of a run: `sync` while it executes in the call that started it; a run started through
 * the MCP server mints no token (`mintsNoToken`), in either.
 */
export const contextOfRun = (run: WorkflowRunRecord, sync: boolean): ActionContext => {
  let limits: Promise<PlanLimits> | undefined;
  return {
    companyId: run.companyId,
    runId: run.runId,
    callerScopes: run.callerScopes,
    caller: run.caller,
    sync,
    mints: run.mintsNoToken !== true,
    hop: run.hop ?? 0,
    now: new Date(),
    limits: () => {
      limits ??= companyLimits(run.companyId);
      return limits;
    },
  };
};

/**
 * Wakes the engine again for an async run whose message is gone (it did not survive a restart): the run's
 * current turn is queued again, so the run goes on from its cursor; a step caught mid-way is recorded as
 * `step_interrupted`, never run twice (`engine.ts`). A start of the same run by someone else meanwhile (a
 * trigger handled again after the restart) names a turn already passed, and runs nothing.
 */
export const resumeWorkflowRun = (run: WorkflowRunRecord): Promise<void> => resumeRunEngine(run);

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
    ...(input.mints === false ? { mintsNoToken: true as const } : {}),
    ...(input.trigger === undefined ? {} : { trigger: input.trigger }),
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

const savedVersion = async (companyId: string, workflowId: string, version: number) => {
  const saved = await getWorkflowVersion(companyId, workflowId, version);
  if (!saved) throw new NotFoundError(`The workflow has no version ${version}.`);
  return saved;
};

/**
 * Starts a run again (`POST …/runs/{runId}/rerun`): a new run with the input of `runId`, on the version it ran
 * (`same`) or the current one (`latest`), its trigger naming the run it repeats. It is counted and limited
 * like any run, and checked against the input schema of the version it runs.
 */
export const rerunWorkflowRun = async (
  input: Omit<StartRunInput, 'input' | 'version' | 'trigger'> & { runId: string; version: 'same' | 'latest' },
): Promise<StartRunResult> => {
  const original = await getWorkflowRunRecord(input.companyId, input.runId);
  if (!original || original.workflowId !== input.workflowId)
    throw new NotFoundError('No run with this id for this workflow.');
  const { runId, version, ...start } = input;
  return startWorkflowRun({
    ...start,
    input: original.input,
    ...(version === 'same' ? { version: original.version } : {}),
    trigger: { type: 'rerun', runId },
  });
};

/** Starts a run: sync runs execute here until done or until the deadline hands them to the engine. */
export const startWorkflowRun = async (input: StartRunInput): Promise<StartRunResult> => {
  const started = Date.now();
  const now = new Date(started);
  const head = await requireWorkflow(input.companyId, input.workflowId);
  const { version, definition } =
    input.version === undefined || input.version === head.version
      ? head
      : await savedVersion(input.companyId, input.workflowId, input.version);
  const run = await createRun(input, version, definition, now);
  if (input.mode === 'async') {
    await startEngine(run);
    return { kind: 'accepted', runId: run.runId };
  }
  try {
    return await runSync(run, definition, started, contextOfRun(run, true));
  } catch (error) {
    // A sync run that broke (not a step: steps never throw) is not left `running`.
    await failRun(run.companyId, run.runId, 'The run could not complete.').catch(() => undefined);
    throw error;
  }
};
