import { createHash } from 'node:crypto';
import { encodeTime } from 'ulid';
import { workflowRunFinishedEventItem } from '../../data/events';
import {
  createRefusedWorkflowRun,
  createWorkflowRun,
  getWorkflowRunRecord,
  WorkflowRunExistsError,
  WorkflowRunQuotaError,
} from '../../data/workflow-runs/runs';
import { getWorkflowHead } from '../../data/workflows';
import { logger } from '../../observability/logger';
import type { RunTrigger } from '../../types/workflow-triggers';
import {
  TRIGGER_CALLER_PREFIX,
  type WorkflowDefinition,
  type WorkflowRunRecord,
} from '../../types/workflows';
import { MAX_WORKFLOW_HOP } from '../../workflow-hops';
import { companyLimits } from '../company-limits';
import { toPublicRun } from './public-run';
import { startRunEngine } from './run-queue';

/**
 * Runs started by a trigger (an event of the company, or the workflow's schedule), exactly once per
 * trigger: the run id is derived from what triggered it (the event and the workflow; the workflow and the
 * time the schedule was due), and a run is created only if no run has that id (the conditional create of
 * `createWorkflowRun`). A trigger handled again (a stream batch retried, a restart before the checkpoint
 * moved, a schedule delivered twice) finds its run and only makes sure the engine has it: it sends the
 * run's first turn again, which a run already moved on from ignores, and which only one copy can take
 * (`docs/decisions/*-exactly-once-workflow-triggers.md`).
 *
 * A triggered run is an async run with the input `{}`, counted in `workflow_runs` like any; over the
 * monthly allowance it is recorded `failed` with `workflow_quota_exceeded` (not counted), and one deeper
 * than `MAX_WORKFLOW_HOP` with `hop_limit_exceeded`, so the refusal is visible in the run list and as a
 * `workflow_run.finished` event.
 */
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** A ULID-shaped run id: the trigger's time, then 80 bits derived from `seed` (so runs sort by time). */
export const triggeredRunId = (time: number, seed: string): string => {
  const digest = createHash('sha256').update(seed).digest();
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[(digest[i] ?? 0) & 31];
  return `wr_${encodeTime(time, 10).toLowerCase()}${tail}`;
};

export interface TriggeredRunRequest {
  companyId: string;
  workflowId: string;
  runId: string;
  trigger: RunTrigger;
  /** What the run's steps may do (the scopes the definition was saved with). */
  scopes: readonly string[];
  /** Whether the workflow's current definition still has this trigger (a stale one starts nothing). */
  accepts: (definition: WorkflowDefinition) => boolean;
  /** The workflow hop of what triggered the run (an event raised by a run's write is one deeper). */
  hop?: number;
  now: Date;
}

export type TriggeredRunOutcome = 'started' | 'refused' | 'exists' | 'skipped';

const QUOTA_REFUSAL = {
  code: 'workflow_quota_exceeded',
  message: 'The monthly workflow runs of the plan are used up; the run was not started.',
} as const;
const HOP_REFUSAL = {
  code: 'hop_limit_exceeded',
  message:
    `The event was raised ${MAX_WORKFLOW_HOP + 1} or more workflow runs deep (a workflow whose writes ` +
    'trigger it again); the run was not started.',
} as const;

export const startTriggeredRun = async (request: TriggeredRunRequest): Promise<TriggeredRunOutcome> => {
  const { companyId, workflowId, runId, now } = request;
  const head = await getWorkflowHead(companyId, workflowId);
  if (!head || !request.accepts(head.definition)) return 'skipped';
  const limits = await companyLimits(companyId);
  const stamp = now.toISOString();
  const run: WorkflowRunRecord = {
    companyId,
    runId,
    workflowId,
    version: head.version,
    mode: 'async',
    status: 'running',
    includeStepOutputs: false,
    input: {},
    callerScopes: [...request.scopes],
    computeBudgetMs: limits.workflowRunComputeMs,
    caller: { source: `${TRIGGER_CALLER_PREFIX}${request.trigger.type}` },
    hop: request.hop ?? 0,
    cursor: 0,
    logs: [],
    outputs: {},
    files: [],
    executionTimeMs: 0,
    createdAt: stamp,
    updatedAt: stamp,
    trigger: request.trigger,
  };
  if ((run.hop ?? 0) > MAX_WORKFLOW_HOP) return recordRefusedRun(run, HOP_REFUSAL, now);
  try {
    await createWorkflowRun(run, limits.workflowRunsPerMonth, now);
  } catch (error) {
    if (error instanceof WorkflowRunExistsError) {
      const existing = await getWorkflowRunRecord(companyId, runId, { consistent: true });
      if (existing?.status === 'running') await startRunEngine(existing);
      return 'exists';
    }
    if (!(error instanceof WorkflowRunQuotaError)) throw error;
    return recordRefusedRun(run, QUOTA_REFUSAL, now);
  }
  await startRunEngine(run);
  logger.info('triggered workflow run started', { runId, workflowId, trigger: request.trigger.type });
  return 'started';
};

const recordRefusedRun = async (
  run: WorkflowRunRecord,
  reason: typeof QUOTA_REFUSAL | typeof HOP_REFUSAL,
  now: Date,
): Promise<TriggeredRunOutcome> => {
  const refused: WorkflowRunRecord = {
    ...run,
    status: 'failed',
    error: { ...reason },
    failedSteps: [],
    finishedAt: now.toISOString(),
  };
  const finished = workflowRunFinishedEventItem({ companyId: run.companyId, run: toPublicRun(refused), now });
  try {
    await createRefusedWorkflowRun(refused, now, [finished]);
  } catch (error) {
    if (error instanceof WorkflowRunExistsError) return 'exists';
    throw error;
  }
  logger.warn('triggered workflow run refused', {
    runId: run.runId,
    workflowId: run.workflowId,
    code: reason.code,
  });
  return 'refused';
};
