import { cancelWorkflowRun as cancelRun } from '../domain/workflows/cancel';
import {
  getWorkflowVersionOf,
  listWorkflowVersionPage,
  getWorkflow as readWorkflow,
  deleteWorkflow as removeWorkflow,
  listWorkflowRuns as runPage,
  saveWorkflow,
  listWorkflows as workflowPage,
} from '../domain/workflows/definitions';
import {
  getWorkflowRun as readRun,
  rerunWorkflowRun as rerunRun,
  runCallerOf,
  type StartRunResult,
  startWorkflowRun,
  toPublicRun,
} from '../domain/workflows/runs';
import {
  deleteWorkflowSecretNamed,
  getWorkflowSecretSummary,
  listWorkflowSecretPage,
  putWorkflowSecret as storeSecret,
} from '../domain/workflows/vault';
import type { RouteHandler } from '../http/router';
import { workflowHopOf } from '../workflow-hops';

/** What each operation of workflows does: the group's routes, its MCP tools. */
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

export const listWorkflows: RouteHandler<'listWorkflows'> = async ({ auth, query }) => ({
  body: await workflowPage(auth.companyId, query),
});
export const getWorkflow: RouteHandler<'getWorkflow'> = async ({ auth, params }) => ({
  body: { workflow: await readWorkflow(auth.companyId, params.id) },
});
export const listWorkflowVersions: RouteHandler<'listWorkflowVersions'> = async ({
  auth,
  params,
  query,
}) => ({
  body: await listWorkflowVersionPage(auth.companyId, params.id, query),
});
export const getWorkflowVersion: RouteHandler<'getWorkflowVersion'> = async ({ auth, params }) => ({
  body: { workflow: await getWorkflowVersionOf(auth.companyId, params.id, Number(params.version)) },
});
export const putWorkflow: RouteHandler<'putWorkflow'> = async ({ auth, params, body, headers, now }) => {
  const saved = await saveWorkflow(auth.companyId, { ...body, id: params.id }, now, {
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
};
export const deleteWorkflow: RouteHandler<'deleteWorkflow'> = async ({ auth, params, headers, now }) => {
  await removeWorkflow(auth.companyId, params.id, now, headers['if-match']);
  return { body: { deleted: true as const, id: params.id } };
};
/**
 * The answer of a started run: 202 `{runId}` when it continues asynchronously, else the finished run. A token
 * a step minted reaches this caller once: an idempotent replay answers the stored run.
 */
const runAnswer = (started: StartRunResult) =>
  started.kind === 'accepted'
    ? { status: 202 as const, body: { runId: started.runId } }
    : { status: 200 as const, body: syncBody(started.run), durableBody: syncBody(started.stored) };

export const runWorkflow: RouteHandler<'runWorkflow'> = async ({ auth, params, body, headers }) => {
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
  return runAnswer(started);
};
export const rerunWorkflowRun: RouteHandler<'rerunWorkflowRun'> = async ({ auth, params, body, headers }) => {
  const started = await rerunRun({
    companyId: auth.companyId,
    workflowId: params.id,
    runId: params.runId,
    version: body.version ?? 'same',
    mode: body.mode ?? 'sync',
    includeStepOutputs: body.includeStepOutputs ?? false,
    callerScopes: auth.scopes,
    caller: runCallerOf(auth),
    hop: workflowHopOf(headers),
  });
  return runAnswer(started);
};
export const listWorkflowRuns: RouteHandler<'listWorkflowRuns'> = async ({ auth, params, query }) => ({
  body: await runPage(auth.companyId, params.id, query),
});
export const cancelWorkflowRun: RouteHandler<'cancelWorkflowRun'> = async ({ auth, params, now }) => ({
  body: {
    run: await cancelRun({ companyId: auth.companyId, workflowId: params.id, runId: params.runId, now }),
  },
});
export const getWorkflowRun: RouteHandler<'getWorkflowRun'> = async ({ auth, params, query }) => ({
  body: {
    run: await readRun({
      companyId: auth.companyId,
      workflowId: params.id,
      runId: params.runId,
      includeStepOutputs: query.includeStepOutputs ?? false,
    }),
  },
});

export const listWorkflowSecrets: RouteHandler<'listWorkflowSecrets'> = async ({ auth, query }) => ({
  body: await listWorkflowSecretPage(auth.companyId, query),
});
export const getWorkflowSecret: RouteHandler<'getWorkflowSecret'> = async ({ auth, params }) => ({
  body: { secret: await getWorkflowSecretSummary(auth.companyId, params.name) },
});
export const putWorkflowSecret: RouteHandler<'putWorkflowSecret'> = async ({
  auth,
  params,
  body,
  headers,
  now,
}) => {
  const { secret, created } = await storeSecret(auth.companyId, params.name, body, now, {
    ifMatch: headers['if-match'],
  });
  // The answer carries the secret's ETag (`answersEtag`).
  return { status: created ? 201 : 200, body: { secret } };
};
export const deleteWorkflowSecret: RouteHandler<'deleteWorkflowSecret'> = async ({
  auth,
  params,
  headers,
}) => {
  await deleteWorkflowSecretNamed(auth.companyId, params.name, { ifMatch: headers['if-match'] });
  return { body: { deleted: true as const, name: params.name } };
};
