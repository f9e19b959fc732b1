import { getWorkflowRun, runCallerOf, startWorkflowRun, toPublicRun } from '../domain/workflows/runs';
import type { RouteHandler } from '../http/router';
import { lazy } from '../lazy';
import { callOperation } from '../operations/call-operation';
import {
  batchDynadataItems,
  createDynadataItem,
  deleteDynadataItem,
  getDynadataItem,
  getDynadataType,
  listDynadataItems,
  listDynadataTypes,
  putDynadataType,
  updateDynadataItem,
  upsertDynadataItem,
} from '../operations/dynadata';
import { getEvent, listEvents, listWebhookDeliveries } from '../operations/events';
import { cancelMessage, listContactMessages, sendMessage } from '../operations/messages';
import { operationInput } from '../operations/operation-input';
import { createSpeechJob, getSpeechJob, listSpeechJobs, synthesizeSpeech } from '../operations/speech';
import {
  completeUpload,
  createDownloadUrl,
  createUploadUrl,
  deleteFile,
  listFiles,
} from '../operations/storage';
import { createTranscode, getTranscode, listTranscodes } from '../operations/transcodes';
import { createTranscription, getTranscription, listTranscriptions } from '../operations/transcriptions';
import { getUsage, getUsageHistory } from '../operations/usage';
import {
  getWorkflow,
  listWorkflowRuns,
  listWorkflowSecrets,
  listWorkflows,
  getWorkflowRun as readRun,
} from '../operations/workflows';
import { CONTACT_ROUTES } from '../routes/contact-routes';
import { DYNADATA_ROUTES } from '../routes/dynadata-routes';
import { DYNADATA_TYPE_ROUTES } from '../routes/dynadata-type-routes';
import { EVENT_ROUTES } from '../routes/event-routes';
import { MESSAGE_ROUTES } from '../routes/message-routes';
import type { AgentDoor, RouteDefinition, ToolEffect } from '../routes/route-definition';
import type { OperationId, Route } from '../routes/route-table';
import { SPEECH_JOB_ROUTES } from '../routes/speech-job-routes';
import { SPEECH_ROUTES } from '../routes/speech-routes';
import { STORAGE_ROUTES } from '../routes/storage-routes';
import { TRANSCODE_ROUTES } from '../routes/transcode-routes';
import { TRANSCRIPTION_ROUTES } from '../routes/transcription-routes';
import { USAGE_ROUTES } from '../routes/usage-routes';
import { WEBHOOK_ROUTES } from '../routes/webhook-routes';
import { WORKFLOW_ROUTES } from '../routes/workflow-routes';
import { workflowRunSchema } from '../routes/workflow-schemas';
import { WORKFLOW_SECRET_ROUTES } from '../routes/workflow-secret-routes';
import type { AuthContext } from '../types/auth';
import { WORKFLOW_HOP_HEADER, workflowHopOf } from '../workflow-hops';
import type * as z from '../zod';

/** What a tool knows of its call: the caller's verified credential, the request and its time. */
export interface ToolContext {
  auth: AuthContext;
  requestId: string;
  now: Date;
  /** The request's workflow hop (`workflow-hops.ts`): a run the tool starts records it. */
  hop?: number;
}

/**
 * One MCP tool: an operation of the route table marked for agents (`agent`). Its input is the operation's
 * own (`operationInput`), its scope the route's, and `run` calls the route's own handler under the route's
 * rules (`callOperation`); the tool answers the route's answer, or the member `agent.answer` names.
 */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  effect: ToolEffect;
  route: RouteDefinition;
  input: z.ZodType;
  /** The tool's `outputSchema`; `run` answers its `structuredContent`. */
  output: z.ZodObject;
  run: (context: ToolContext, input: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

/** The operations the route table offers to agents (`agent` marks). */
type AgentOperationId = Extract<Route, { agent: object }>['operationId'];

/**
 * `run_workflow` at the agent's door: the MCP function holds no signing key, so its runs mint no token, and
 * the tool answers the run as get_workflow_run shows it, also when the run goes on asynchronously.
 */
const runWorkflowForAgent = (async ({
  auth,
  params,
  body,
  headers,
}: Parameters<RouteHandler<'runWorkflow'>>[0]) => {
  const includeStepOutputs = body.includeStepOutputs ?? false;
  const started = await startWorkflowRun({
    companyId: auth.companyId,
    workflowId: params.id,
    mode: body.mode ?? 'sync',
    includeStepOutputs,
    input: body.input ?? {},
    callerScopes: auth.scopes,
    caller: runCallerOf(auth),
    hop: workflowHopOf(headers),
    mints: false,
  });
  const run =
    started.kind === 'accepted'
      ? await getWorkflowRun({ companyId: auth.companyId, workflowId: params.id, runId: started.runId })
      : toPublicRun(started.run, { includeStepOutputs });
  return { body: run };
}) as unknown as RouteHandler<'runWorkflow'>;

/**
 * The handler of every operation offered to agents: exactly those the table marks (a mark without its handler,
 * or a handler without its mark, does not compile), imported one by one so the group bundles only these.
 */
const HANDLERS: { [O in AgentOperationId]: RouteHandler<O> } = {
  listWorkflowSecrets,
  listDynadataTypes,
  getDynadataType,
  putDynadataType,
  listDynadataItems,
  getDynadataItem,
  batchDynadataItems,
  createDynadataItem,
  upsertDynadataItem,
  updateDynadataItem,
  deleteDynadataItem,
  createTranscode,
  listTranscodes,
  getTranscode,
  createTranscription,
  listTranscriptions,
  getTranscription,
  synthesizeSpeech,
  createSpeechJob,
  listSpeechJobs,
  getSpeechJob,
  sendMessage,
  cancelMessage,
  listContactMessages,
  createUploadUrl,
  completeUpload,
  createDownloadUrl,
  listFiles,
  deleteFile,
  getUsage,
  getUsageHistory,
  listWorkflows,
  getWorkflow,
  runWorkflow: runWorkflowForAgent,
  listWorkflowRuns,
  getWorkflowRun: readRun,
  listEvents,
  getEvent,
  listWebhookDeliveries,
};

/** Answers the tool gives in another shape than its route's (described with the tool). */
const OUTPUTS: Partial<Record<AgentOperationId, () => z.ZodObject>> = { runWorkflow: workflowRunSchema };

/** The sections of the table whose operations the tools are (no other area is bundled). */
const TOOL_ROUTES: readonly RouteDefinition[] = [
  ...DYNADATA_TYPE_ROUTES,
  ...DYNADATA_ROUTES,
  ...TRANSCODE_ROUTES,
  ...TRANSCRIPTION_ROUTES,
  ...SPEECH_ROUTES,
  ...SPEECH_JOB_ROUTES,
  ...CONTACT_ROUTES,
  ...MESSAGE_ROUTES,
  ...STORAGE_ROUTES,
  ...USAGE_ROUTES,
  ...WORKFLOW_ROUTES,
  ...WORKFLOW_SECRET_ROUTES,
  ...EVENT_ROUTES,
  ...WEBHOOK_ROUTES,
];

const outputOf = (route: RouteDefinition, door: AgentDoor): z.ZodObject => {
  const own = OUTPUTS[route.operationId as AgentOperationId];
  if (own) return own();
  const response = route.response as z.ZodObject;
  return door.answer === undefined ? response : (response.shape[door.answer] as z.ZodObject);
};

const toolOf = (
  route: RouteDefinition,
  door: AgentDoor,
  handler: RouteHandler<OperationId>,
): ToolDefinition => ({
  name: door.tool,
  title: door.title,
  description: door.description,
  effect: door.effect,
  route,
  get input() {
    return operationInput(route);
  },
  get output() {
    return outputOf(route, door);
  },
  run: async (context, input) => {
    const answer = (await callOperation(route, handler, {
      auth: context.auth,
      input,
      now: context.now,
      requestId: context.requestId,
      headers: context.hop === undefined ? {} : { [WORKFLOW_HOP_HEADER]: String(context.hop) },
    })) as Record<string, unknown>;
    return door.answer === undefined || OUTPUTS[route.operationId as AgentOperationId]
      ? answer
      : (answer[door.answer] as Record<string, unknown>);
  },
});

/**
 * Every tool of the server, in the route table's order (`tools/list` shows them so). Adding a tool is an
 * `agent` mark on its route and its handler above. Built on first use, so a cold start builds no schema.
 */
export const TOOLS = /* @__PURE__ */ lazy((): readonly ToolDefinition[] =>
  TOOL_ROUTES.flatMap((route) => {
    const handler = (HANDLERS as Partial<Record<string, RouteHandler<OperationId>>>)[route.operationId];
    return route.agent && handler ? [toolOf(route, route.agent, handler)] : [];
  }),
);
