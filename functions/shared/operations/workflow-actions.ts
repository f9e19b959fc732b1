import { type ActionContext, registerActions, type WorkflowAction } from '../domain/workflows/actions';
import { defineAction } from '../domain/workflows/actions/registry';
import { withIdempotency } from '../http/idempotency';
import type { RouteHandler } from '../http/router';
import { CONTACT_ROUTES } from '../routes/contact-routes';
import { DYNADATA_ROUTES } from '../routes/dynadata-routes';
import { DYNADATA_TYPE_ROUTES } from '../routes/dynadata-type-routes';
import { MESSAGE_ROUTES } from '../routes/message-routes';
import type { RouteDefinition } from '../routes/route-definition';
import type { OperationId, Route } from '../routes/route-table';
import { SPEECH_JOB_ROUTES } from '../routes/speech-job-routes';
import { SPEECH_ROUTES } from '../routes/speech-routes';
import { STORAGE_ROUTES } from '../routes/storage-routes';
import { TRANSCODE_ROUTES } from '../routes/transcode-routes';
import { TRANSCRIPTION_ROUTES } from '../routes/transcription-routes';
import { USAGE_ROUTES } from '../routes/usage-routes';
import type { AuthContext } from '../types/auth';
import type { Scope } from '../types/scopes';
import type { StorageRef } from '../types/workflows';
import { WORKFLOW_HOP_HEADER } from '../workflow-hops';
import { callOperation } from './call-operation';
import {
  batchDynadataItems,
  createDynadataItem,
  deleteDynadataItem,
  getDynadataItem,
  listDynadataItems,
  updateDynadataItem,
  upsertDynadataItem,
} from './dynadata';
import { cancelMessage, listContactMessages, sendMessage } from './messages';
import { operationInput } from './operation-input';
import { createSpeechJob, getSpeechJob, rewriteSpokenText, synthesizeSpeech } from './speech';
import { createDownloadUrl, listFiles } from './storage';
import { createTranscode, getTranscode } from './transcodes';
import { createTranscription, getTranscription } from './transcriptions';
import { getUsageHistory } from './usage';

/** The operations the route table offers to workflows (`workflow` marks). */
type WorkflowOperationId = Extract<Route, { workflow: object }>['operationId'];

/**
 * The handler of every operation offered to workflows: exactly those the table marks (a mark without its
 * handler, or a handler without its mark, does not compile). Imported one by one, so a function that runs
 * steps bundles only these operations' code.
 */
const HANDLERS: { [O in WorkflowOperationId]: RouteHandler<O> } = {
  createTranscode,
  getTranscode,
  createTranscription,
  getTranscription,
  createSpeechJob,
  getSpeechJob,
  synthesizeSpeech,
  rewriteSpokenText,
  sendMessage,
  cancelMessage,
  listContactMessages,
  createDownloadUrl,
  listFiles,
  getUsageHistory,
  batchDynadataItems,
  createDynadataItem,
  upsertDynadataItem,
  updateDynadataItem,
  getDynadataItem,
  deleteDynadataItem,
  listDynadataItems,
};

const ROUTES_OF_ACTIONS: readonly RouteDefinition[] = [
  ...TRANSCODE_ROUTES,
  ...TRANSCRIPTION_ROUTES,
  ...SPEECH_JOB_ROUTES,
  ...SPEECH_ROUTES,
  ...CONTACT_ROUTES,
  ...MESSAGE_ROUTES,
  ...STORAGE_ROUTES,
  ...USAGE_ROUTES,
  ...DYNADATA_TYPE_ROUTES,
  ...DYNADATA_ROUTES,
];

/**
 * The credential a step acts with: the run's company and the scopes of the credential that started it (the
 * step runner checked the action's scope against them), and, for an operation that reads them, the
 * company's storage limits as the run resolved them.
 */
const authOfStep = async (ctx: ActionContext, usesLimits: boolean): Promise<AuthContext> => {
  const limits = usesLimits ? await ctx.limits() : undefined;
  return {
    companyId: ctx.companyId,
    authMethod: ctx.caller?.tokenId ? 'jwt' : 'api_key',
    keyId: ctx.caller?.tokenId ?? ctx.caller?.source ?? ctx.runId,
    scopes: ctx.callerScopes as Scope[],
    ...(ctx.caller?.source ? { source: ctx.caller.source } : {}),
    ...(limits ? { storageBytesLimit: limits.storageBytes, maxObjectBytes: limits.maxObjectBytes } : {}),
  };
};

const fileOf = (output: unknown): StorageRef[] => {
  const { bucket, fullPath } = output as StorageRef;
  return [{ bucket, fullPath }];
};

/** The step action of an operation: its input is the operation's, its work the operation's handler. */
export const actionOf = (route: RouteDefinition, handler: RouteHandler<OperationId>): WorkflowAction => {
  const door = route.workflow;
  if (!door) throw new Error(`${route.operationId} is not offered to workflows`);
  return defineAction({
    name: door.action,
    scope: route.scope as Scope,
    maxDurationMs: door.maxDurationMs,
    get input() {
      return operationInput(route);
    },
    run: async (input, ctx) => {
      const call = async () => ({
        status: 200,
        body: await callOperation(route, handler, {
          auth: await authOfStep(ctx, door.usesLimits === true),
          input: input as Record<string, unknown>,
          now: ctx.now,
          requestId: ctx.runId,
          // What a run does is one hop further than the request that started it, like its HTTP requests.
          headers: { [WORKFLOW_HOP_HEADER]: String(ctx.hop + 1) },
        }),
      });
      // A write the route keys by `Idempotency-Key` is keyed by the run and the step here: a step run again
      // (its message redelivered after a crash) answers what the first run of it did and writes nothing twice.
      const keyed = route.idempotency === 'keyed' && ctx.stepId !== undefined;
      const { body } = await withIdempotency(
        { companyId: ctx.companyId, operationId: `workflow:${door.action}`, params: {}, body: input },
        keyed ? `${ctx.runId}/${ctx.stepId}` : undefined,
        call,
        ctx.now,
      );
      return body;
    },
    ...(door.answersFile ? { files: fileOf } : {}),
  });
};

/** The actions of the operations offered to workflows, in the table's order. */
export const operationActions = (): WorkflowAction[] =>
  ROUTES_OF_ACTIONS.flatMap((route) => {
    const handler = (HANDLERS as Partial<Record<string, RouteHandler<OperationId>>>)[route.operationId];
    return route.workflow && handler ? [actionOf(route, handler)] : [];
  });

/** Called once by every entry that runs or saves workflows, before it does. */
export const registerWorkflowActions = (): void => registerActions(operationActions());
