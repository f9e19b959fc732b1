import { getWorkflowRunRecord } from '../../data/workflow-runs/runs';
import { NotFoundError } from '../../errors';
import type { RunTrigger } from '../../types/workflow-triggers';
import type { WorkflowRunRecord } from '../../types/workflows';

/** What started the run: the API, an event (its id and type) or the schedule (the time it was due). */
const publicTrigger = (trigger: RunTrigger | undefined) => {
  if (trigger?.type === 'event')
    return { type: 'event' as const, eventId: trigger.event.id, eventType: trigger.event.type };
  if (trigger?.type === 'schedule') return { type: 'schedule' as const, scheduledAt: trigger.scheduledAt };
  if (trigger?.type === 'rerun') return { type: 'rerun' as const, rerunOf: trigger.runId };
  return { type: 'api' as const };
};

/**
 * A run as `GET /v1/workflows/{id}/runs/{runId}` shows it (and the MCP tool). `ok` is true only for
 * `success`; `logs` are per step (step, action, status, startedAt, durationMs, message); `stepOutputs` only
 * when asked for and when the run was started with `includeStepOutputs` (large outputs as storage references).
 */
export const toPublicRun = (run: WorkflowRunRecord, options: { includeStepOutputs?: boolean } = {}) => ({
  runId: run.runId,
  workflowId: run.workflowId,
  version: run.version,
  mode: run.mode,
  status: run.status,
  ok: run.status === 'success',
  result: run.result ?? null,
  files: run.files,
  logs: run.logs.map((l) => ({
    step: l.step,
    action: l.action,
    status: l.status,
    startedAt: l.startedAt,
    durationMs: l.durationMs,
    message: l.message ?? null,
    ...(l.attempts ? { attempts: l.attempts } : {}),
  })),
  error: run.error
    ? { code: run.error.code, ...(run.error.message ? { message: run.error.message } : {}) }
    : null,
  failedSteps: run.failedSteps ?? [],
  executionTimeMs: run.executionTimeMs,
  createdAt: run.createdAt,
  updatedAt: run.updatedAt,
  finishedAt: run.finishedAt ?? null,
  handedOffAt: run.handedOffAt ?? null,
  trigger: publicTrigger(run.trigger),
  ...(options.includeStepOutputs && run.includeStepOutputs
    ? {
        stepOutputs: Object.entries(run.outputs ?? {}).map(([step, stored]) =>
          'inline' in stored
            ? { step, output: stored.inline }
            : { step, object: stored.object, bytes: stored.bytes },
        ),
      }
    : {}),
});

export type PublicWorkflowRun = ReturnType<typeof toPublicRun>;

/**
 * The run exactly as the run route shows it. A missing run, a run of another workflow and another tenant's
 * run are all the same 404 `not_found`.
 */
export const getWorkflowRun = async (input: {
  companyId: string;
  workflowId: string;
  runId: string;
  includeStepOutputs?: boolean;
}): Promise<PublicWorkflowRun> => {
  const run = await getWorkflowRunRecord(input.companyId, input.runId);
  if (!run || run.workflowId !== input.workflowId) throw new NotFoundError('No run with this id.');
  return toPublicRun(run, { includeStepOutputs: input.includeStepOutputs ?? false });
};
