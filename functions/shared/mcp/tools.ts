import { createItem, deleteItem, getItem, updateItem } from '../domain/dynadata/items';
import { listItems } from '../domain/dynadata/list';
import { listRequestSchema } from '../domain/dynadata/list-request';
import { typeSummaryPage } from '../domain/dynadata/types';
import { getJob } from '../domain/jobs/commands';
import { SPEECH_JOB_TYPE, toPublicSpeechJob } from '../domain/speech-jobs';
import { toPublicJob, transcodeJobs } from '../domain/transcodes';
import { getTranscription, toPublicTranscription } from '../domain/transcriptions';
import { getUsageSnapshot } from '../domain/usage';
import { listWorkflowRuns, listWorkflows } from '../domain/workflows/definitions';
import { getWorkflowRun, toPublicRun } from '../domain/workflows/public-run';
import { runCallerOf, startWorkflowRun } from '../domain/workflows/runs';
import { lazy } from '../lazy';
import * as dd from '../routes/dynadata-schemas';
import type { OperationId } from '../routes/route-table';
import { usageSnapshotSchema } from '../routes/schemas';
import { speechJobSchema } from '../routes/speech-job-schemas';
import { transcodeJobSchema } from '../routes/transcode-schemas';
import { transcriptionJobSchema } from '../routes/transcription-schemas';
import { workflowRunSchema, workflowSummarySchema } from '../routes/workflow-schemas';
import type { AuthContext } from '../types/auth';
import type { McpToolName } from '../types/mcp-tools';
import { WORKFLOW_RUN_STATUSES } from '../types/workflows';
import * as z from '../zod';

/** What a tool knows of its call: the caller's verified credential, the request and its time. */
export interface ToolContext {
  auth: AuthContext;
  requestId: string;
  now: Date;
  /** The request's workflow hop (`workflow-hops.ts`): a run the tool starts records it. */
  hop?: number;
}

/**
 * One MCP tool. It mirrors one route (`operationId`): the server applies that route's scope and, where the
 * route writes Dynadata items, its log-entry guard, before `run` calls the route's own domain function.
 * `output` is the tool's `outputSchema`; `run` answers its `structuredContent`.
 */
/**
 * `read` changes nothing; `create` only adds (a repeated call adds again); `update` changes an existing item
 * (and its `_version`, so a repeat is not without effect); `delete` removes one (a repeat finds nothing more to
 * remove).
 */
export type ToolEffect = 'read' | 'create' | 'update' | 'delete';

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: McpToolName;
  title: string;
  description: string;
  operationId: OperationId;
  input: I;
  output: O;
  /** What a call does to the company's data; the server derives the MCP annotations from it. */
  effect: ToolEffect;
  run: (context: ToolContext, input: z.output<I>) => Promise<z.output<O>>;
}

const tool = <I extends z.ZodObject, O extends z.ZodObject>(t: ToolDefinition<I, O>): ToolDefinition =>
  t as unknown as ToolDefinition;

/**
 * Every tool of the server, in the order `tools/list` shows them. Adding a tool is one entry here: its route's
 * operationId (for the scope), zod input and output, and the domain call. Built on first use, schemas
 * included, so a cold start of the group builds none of them.
 */
export const TOOLS = /* @__PURE__ */ lazy((): readonly ToolDefinition[] => {
  const jobId = z.string().min(1).max(64).describe('Job identifier (`id` of the job).');
  const typeName = z.string().min(1).max(64).describe('Dynadata type name, e.g. `contacts`.');
  const itemId = z.string().min(1).max(64).describe('Item `_id`.');
  const workflowId = () => z.string().min(1).max(64).describe('Workflow identifier.');
  const cursor = () =>
    z.string().min(1).max(2048).optional().describe('The `nextCursor` of the previous page.');
  return [
    tool({
      name: 'get_transcode_job',
      title: 'Get a media transform job',
      description:
        'A media transform (transcode) job exactly as GET /v1/transcodes/{id} shows it under `job`: status ' +
        '(pending, probing, transcoding, finalizing, done, failed, canceled) and, when done, the output file.',
      operationId: 'getTranscode',
      input: z.object({ id: jobId }).strict(),
      output: transcodeJobSchema(),
      effect: 'read',
      run: async ({ auth }, { id }) => toPublicJob(await getJob(transcodeJobs, auth.companyId, id)),
    }),
    tool({
      name: 'get_transcription_job',
      title: 'Get a transcription job',
      description:
        'A transcription job exactly as GET /v1/transcriptions/{id} shows it under `job`: status and, when ' +
        'done, the text, timed words and transcript files.',
      operationId: 'getTranscription',
      input: z.object({ id: jobId }).strict(),
      output: transcriptionJobSchema(),
      effect: 'read',
      run: async ({ auth }, { id }) => toPublicTranscription(await getTranscription(auth.companyId, id)),
    }),
    tool({
      name: 'get_speech_job',
      title: 'Get a speech job',
      description:
        'A long-form speech job exactly as GET /v1/speech/jobs/{id} shows it under `job`: status and, when ' +
        'done, the audio file and the JSON timing file of its sentences.',
      operationId: 'getSpeechJob',
      input: z.object({ id: jobId }).strict(),
      output: speechJobSchema(),
      effect: 'read',
      run: async ({ auth }, { id }) => toPublicSpeechJob(await getJob(SPEECH_JOB_TYPE, auth.companyId, id)),
    }),
    tool({
      name: 'get_usage',
      title: 'Get the usage snapshot',
      description:
        'The usage snapshot of GET /v1/usage without its `{success, usage}` wrapper: meters, compute by ' +
        'category, storage and database bytes, the plan with its limits, the subscription period.',
      operationId: 'getUsage',
      input: z
        .object({
          granularity: z
            .enum(['month', 'day'])
            .optional()
            .describe('`month` (default): the current UTC month; `day`: today so far (UTC).'),
        })
        .strict(),
      output: usageSnapshotSchema(),
      effect: 'read',
      run: ({ auth, now }, { granularity }) =>
        getUsageSnapshot(auth.companyId, granularity ?? 'month', now, auth.planId),
    }),
    tool({
      name: 'get_workflow_run',
      title: 'Get a workflow run',
      description:
        'A workflow run exactly as GET /v1/workflows/{id}/runs/{runId} shows it under `run`: status, ok, ' +
        'result, files, logs, failedSteps; with `includeStepOutputs`, the persisted output of each step.',
      operationId: 'getWorkflowRun',
      input: z
        .object({
          workflowId: z.string().min(1).max(64).describe('Workflow identifier.'),
          runId: z.string().min(1).max(64).describe('Run identifier.'),
          includeStepOutputs: z.boolean().optional().describe('Include the persisted output of each step.'),
        })
        .strict(),
      output: workflowRunSchema(),
      effect: 'read',
      run: ({ auth }, { workflowId, runId, includeStepOutputs }) =>
        getWorkflowRun({ companyId: auth.companyId, workflowId, runId, includeStepOutputs }),
    }),
    tool({
      name: 'list_workflows',
      title: 'List workflows',
      description: "The company's workflows as GET /v1/workflows: id, version, name, description, steps.",
      operationId: 'listWorkflows',
      input: z.object({ cursor: cursor() }).strict(),
      output: z.object({ workflows: z.array(workflowSummarySchema()), nextCursor: z.string().nullable() }),
      effect: 'read',
      run: ({ auth }, { cursor }) => listWorkflows(auth.companyId, { cursor }),
    }),
    tool({
      name: 'run_workflow',
      title: 'Run a workflow',
      description:
        'Runs a workflow synchronously, as POST /v1/workflows/{id}/run with `mode: sync`, and answers the run ' +
        'as GET /v1/workflows/{id}/runs/{runId} shows it (check `ok`). A run that cannot finish before the ' +
        'deadline continues asynchronously: it is answered `running`; read it later with get_workflow_run. A ' +
        'step that mints a token fails (`jwt_requires_sync_run`): tokens are minted only by the run route.',
      operationId: 'runWorkflow',
      input: z
        .object({
          workflowId: workflowId(),
          input: z.record(z.string(), z.unknown()).optional().describe('Run input (the workflow `input`).'),
        })
        .strict(),
      output: workflowRunSchema(),
      effect: 'create',
      run: async ({ auth, hop }, { workflowId, input }) => {
        const started = await startWorkflowRun({
          companyId: auth.companyId,
          workflowId,
          mode: 'sync',
          includeStepOutputs: false,
          input: input ?? {},
          callerScopes: auth.scopes,
          caller: runCallerOf(auth),
          hop: hop ?? 0,
          mints: false,
        });
        return started.kind === 'finished'
          ? toPublicRun(started.run)
          : getWorkflowRun({ companyId: auth.companyId, workflowId, runId: started.runId });
      },
    }),
    tool({
      name: 'list_workflow_runs',
      title: "List a workflow's runs",
      description:
        "A workflow's runs, newest first, as GET /v1/workflows/{id}/runs: runId, status, trigger, startedAt, " +
        'finishedAt; `status` lists only runs with that status.',
      operationId: 'listWorkflowRuns',
      input: z
        .object({
          workflowId: workflowId(),
          status: z.enum(WORKFLOW_RUN_STATUSES).optional().describe('Only runs with this status.'),
          limit: z.number().int().min(1).max(100).optional().describe('Runs per page (default 20).'),
          cursor: cursor(),
        })
        .strict(),
      output: z.object({
        runs: z.array(
          z.object({
            runId: z.string(),
            status: z.enum(WORKFLOW_RUN_STATUSES),
            trigger: z.string(),
            startedAt: z.string(),
            finishedAt: z.string().nullable(),
          }),
        ),
        nextCursor: z.string().nullable(),
      }),
      effect: 'read',
      run: ({ auth }, { workflowId, ...request }) => listWorkflowRuns(auth.companyId, workflowId, request),
    }),
    tool({
      name: 'list_dynadata_types',
      title: 'List Dynadata types',
      description: 'The Dynadata types of the company, built-in and custom, as GET /v1/dynadata/types.',
      operationId: 'listDynadataTypes',
      input: z
        .object({
          cursor: z.string().min(1).max(2048).optional().describe('The `nextCursor` of the previous page.'),
        })
        .strict(),
      output: dd.listTypesResponse(),
      effect: 'read',
      run: ({ auth }, { cursor }) => typeSummaryPage(auth.companyId, { cursor }),
    }),
    tool({
      name: 'list_dynadata_items',
      title: 'List items of a Dynadata type',
      description:
        'One page of items of a type, as POST /v1/dynadata/type/{type}/list: optional filter, sort, limit ' +
        '(1 to 100) and the `nextCursor` of the previous page.',
      operationId: 'listDynadataItems',
      input: listRequestSchema().extend({ type: typeName }).strict(),
      output: dd.listItemsResponse(),
      effect: 'read',
      run: ({ auth }, { type, ...request }) => listItems(auth.companyId, type, request),
    }),
    tool({
      name: 'get_dynadata_item',
      title: 'Get a Dynadata item',
      description: 'One item by `_id`, as GET /v1/dynadata/type/{type}/item/{_id}.',
      operationId: 'getDynadataItem',
      input: z.object({ type: typeName, id: itemId }).strict(),
      output: dd.dynadataItemSchema(),
      effect: 'read',
      run: ({ auth }, { type, id }) => getItem(auth.companyId, type, id),
    }),
    tool({
      name: 'create_dynadata_item',
      title: 'Create a Dynadata item',
      description:
        'Creates an item from its fields (as the type schema describes them), as POST ' +
        '/v1/dynadata/type/{type}/create. `log_entries` is read-only.',
      operationId: 'createDynadataItem',
      input: z.object({ type: typeName, item: dd.itemFieldsBody() }).strict(),
      output: dd.dynadataItemSchema(),
      effect: 'create',
      run: ({ auth, now }, { type, item }) => createItem(auth.companyId, type, item, now),
    }),
    tool({
      name: 'update_dynadata_item',
      title: 'Update a Dynadata item',
      description:
        'A JSON merge patch of an item (`item._id` names it; `item._version` detects races), as POST ' +
        '/v1/dynadata/type/{type}/update. `log_entries` is read-only.',
      operationId: 'updateDynadataItem',
      input: z.object({ type: typeName, item: dd.updateItemBody() }).strict(),
      output: dd.dynadataItemSchema(),
      effect: 'update',
      run: ({ auth, now }, { type, item }) => updateItem(auth.companyId, type, item, now),
    }),
    tool({
      name: 'delete_dynadata_item',
      title: 'Delete a Dynadata item',
      description:
        'Deletes an item, as DELETE /v1/dynadata/type/{type}/item/{_id}. `log_entries` is read-only.',
      operationId: 'deleteDynadataItem',
      input: z.object({ type: typeName, id: itemId }).strict(),
      output: dd.deleteItemResponse(),
      effect: 'delete',
      run: ({ auth }, { type, id }) => deleteItem(auth.companyId, type, id),
    }),
  ];
});
