import { cancelWorkflowRun } from '../../shared/domain/workflows/cancel';
import {
  deleteWorkflow,
  getWorkflow,
  listWorkflowRuns,
  listWorkflows,
  saveWorkflow,
} from '../../shared/domain/workflows/definitions';
import {
  getWorkflowRun,
  runCallerOf,
  startWorkflowRun,
  toPublicRun,
} from '../../shared/domain/workflows/runs';
import { createApiHandler } from '../../shared/http/middleware';
import { WORKFLOW_ROUTES } from '../../shared/routes/workflow-routes';
import { workflowHopOf } from '../../shared/workflow-hops';

const syncBody = (run: Parameters<typeof toPublicRun>[0]) => {
  const { runId, status, ok, result, files, logs, error, failedSteps, executionTimeMs, stepOutputs } =
    toPublicRun(run, { includeStepOutputs: true });
  return {
    runId,
    status,
    ok,
    result,
    files,
    logs,
    error,
    failedSteps,
    executionTimeMs,
    ...(stepOutputs ? { stepOutputs } : {}),
  };
};

export const handler = createApiHandler('workflows', WORKFLOW_ROUTES, {
  listWorkflows: async ({ auth, query }) => ({ body: await listWorkflows(auth.companyId, query) }),
  getWorkflow: async ({ auth, params }) => ({
    body: { workflow: await getWorkflow(auth.companyId, params.id) },
  }),
  putWorkflow: async ({ auth, params, body, headers }) => {
    const saved = await saveWorkflow(auth.companyId, { ...body, id: params.id }, new Date(), {
      ifMatch: headers['if-match'],
      pointerPrefix: '/body',
      // Runs its triggers start act with at most the saving key's scopes, like runs it starts itself.
      triggerScopes: auth.scopes,
      problems:
        body.id === undefined || body.id === params.id
          ? []
          : [{ pointer: '/body/id', message: `must be the id of the path, ${params.id}` }],
    });
    return { status: saved.created ? 201 : 200, body: { workflow: saved.workflow } };
  },
  deleteWorkflow: async ({ auth, params, headers }) => {
    await deleteWorkflow(auth.companyId, params.id, new Date(), headers['if-match']);
    return { status: 204, raw: '' };
  },
  runWorkflow: async ({ auth, params, body, headers }) => {
    const started = await startWorkflowRun({
      companyId: auth.companyId,
      workflowId: params.id,
      mode: body.mode ?? 'sync',
      includeStepOutputs: body.includeStepOutputs ?? false,
      input: body.input ?? {},
      callerScopes: auth.scopes,
      caller: runCallerOf(auth),
      hop: workflowHopOf(headers),
    });
    // A token a step minted reaches this caller once: an idempotent replay answers the stored run.
    return started.kind === 'accepted'
      ? { status: 202, body: { runId: started.runId } }
      : { status: 200, body: syncBody(started.run), durableBody: syncBody(started.stored) };
  },
  listWorkflowRuns: async ({ auth, params, query }) => ({
    body: await listWorkflowRuns(auth.companyId, params.id, query),
  }),
  cancelWorkflowRun: async ({ auth, params }) => ({
    body: {
      run: await cancelWorkflowRun({
        companyId: auth.companyId,
        workflowId: params.id,
        runId: params.runId,
        now: new Date(),
      }),
    },
  }),
  getWorkflowRun: async ({ auth, params, query }) => ({
    body: {
      run: await getWorkflowRun({
        companyId: auth.companyId,
        workflowId: params.id,
        runId: params.runId,
        includeStepOutputs: query.includeStepOutputs ?? false,
      }),
    },
  }),
});
