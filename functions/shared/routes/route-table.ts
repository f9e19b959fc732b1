import { speechRequestSchema, spokenTextRequestSchema } from '../domain/speech-request';
import type { ErrorCode } from '../errors';
import { METERS } from '../types/meters';
import type { Scope } from '../types/scopes';
import { SPEECH_FORMATS } from '../types/speech-voices';
import * as z from '../zod';
import * as dd from './dynadata-schemas';
import { EVENT_ROUTES } from './event-routes';
import { jsonRpcMessageSchema, jsonRpcResponseSchema, MCP_EXAMPLES } from './mcp-schemas';
import { companySchema, planSchema, usageSnapshotSchema } from './schemas';
import {
  downloadUrlQuerySchema,
  downloadUrlResponseSchema,
  storageReferenceBodySchema,
  storedObjectResponseSchema,
  uploadUrlBodySchema,
  uploadUrlResponseSchema,
} from './storage-schemas';
import { createTranscodeBodySchema, transcodeJobResponseSchema } from './transcode-schemas';
import { createTranscriptionBodySchema, transcriptionJobResponseSchema } from './transcription-schemas';
import * as wf from './workflow-schemas';

/**
 * The one route table. The CDK API stack builds resources and methods from it, the local gateway routes
 * from it, each group's router dispatches from it, and the OpenAPI document is generated from it.
 *
 * Paths are the public paths (`/v1/...`) in API Gateway `{param}` syntax. On AWS the stage is named `v1`,
 * so the REST API resource of a route is its path without the `/v1` prefix (see `apiResourcePath`).
 */
export const ROUTE_GROUPS = [
  'public',
  'company',
  'contacts',
  'dynadata',
  'storage',
  'transcriptions',
  'transcodes',
  'speech',
  'usage',
  'workflows',
  'mcp',
  'events',
] as const;

export type RouteGroup = (typeof ROUTE_GROUPS)[number];
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RouteDefinition {
  method: HttpMethod;
  path: `/v1/${string}`;
  group: RouteGroup;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /**
   * Scope the credential must hold, `public` for routes that take no authentication, or `authenticated` for a
   * route that takes any valid credential and checks finer scopes itself (the MCP server checks each tool's).
   */
  scope: Scope | 'public' | 'authenticated';
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: z.ZodType;
  /** HTTP status of a successful call. */
  successStatus?: number;
  /** Other successful answers (a sync run that continued asynchronously answers 202). */
  alsoAnswers?: readonly { status: number; description: string; response: z.ZodType }[];
  /** The route honours `Idempotency-Key` (`http/idempotency.ts`). */
  idempotent?: true;
  /** The route writes items of the Dynadata type `{type}`: the log-entry guard (`http/log-entry-guard.ts`) runs. */
  writesItemsOfType?: true;
  /**
   * Problem codes the route's own work can answer, beyond those of the chain that every route of its kind can
   * (validation, credential, scope, quota, body, idempotency: see `http/openapi.ts`). The OpenAPI document
   * declares each under its status, and the contract tests fail on any code an operation answers undeclared.
   */
  errors?: readonly ErrorCode[];
  /** Declared by the spec but not available yet: answers 501 `not_implemented`. */
  planned?: true;
  /** Examples of a request body and of a successful answer, for the OpenAPI document (checked by its lint). */
  examples?: { request?: unknown; response?: unknown };
  /**
   * Shapes the document shows instead of `body` and `response` where those are generic on purpose (each
   * Dynadata function validates its own input; `item-fields`: the fields of a contact, or of a custom type as
   * its `/schema` describes them): never used to validate, only converted when the document is.
   */
  documented?: { body?: z.ZodType | 'item-fields'; response?: z.ZodType };
  /**
   * Media types of a successful answer that is not JSON (the documentation page and its assets): the handler
   * answers a raw body (`RouteResult.raw`) and the document declares these types instead of `application/json`.
   */
  produces?: readonly string[];
  /** Further successful statuses answered with no body, each with its description (a JSON-RPC notification). */
  emptyAnswers?: Readonly<Record<number, string>>;
}

const route = <const R extends RouteDefinition>(r: R): R => r;

const typeParam = z.object({ type: z.string().min(1).max(64).describe('Dynadata type name.') });
const itemParams = typeParam.extend({ _id: z.string().min(1).max(64).describe('Item identifier.') });
const jobId = z.object({ id: z.string().min(1).max(64).describe('Job identifier.') });

export const ROUTES = [
  route({
    method: 'GET',
    path: '/v1/public/plans',
    group: 'public',
    operationId: 'listPublicPlans',
    summary: 'Public plan catalog',
    description: 'Needs no authentication and resolves no company. Not metered.',
    tag: 'Plans',
    scope: 'public',
    query: z.object({
      sellableOnly: z
        .enum(['true', 'false'])
        .optional()
        .describe('When `true`, only plans currently on sale are returned.'),
    }),
    response: z.object({ plans: z.array(planSchema) }),
  }),
  route({
    method: 'GET',
    path: '/v1/openapi.json',
    group: 'public',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.0 document',
    tag: 'Meta',
    scope: 'public',
    response: z.record(z.string(), z.unknown()).describe('OpenAPI 3.0 document.'),
  }),
  route({
    method: 'GET',
    path: '/v1/self',
    group: 'company',
    operationId: 'getSelf',
    summary: "The authenticated company's profile",
    tag: 'Company',
    scope: 'company:read',
    response: z.object({ company: companySchema }),
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/contacts/{contactId}/send_message',
    group: 'contacts',
    operationId: 'sendMessage',
    summary: 'Send a message to one contact',
    tag: 'Contacts',
    scope: 'messages:send',
    params: z.object({ contactId: z.string().min(1).max(64).describe('Contact item `_id`.') }),
    body: dd.sendMessageBody,
    response: dd.sendMessageResponse,
    successStatus: 202,
    idempotent: true,
    errors: ['not_found', 'invalid_storage_reference'],
    examples: {
      request: { type: 'text', body: { text: 'Your order has shipped.' } },
      response: { messageId: '01jd3xq0a6m5r6y1z8k7w2v4bn', status: 'queued' },
    },
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/types',
    group: 'dynadata',
    operationId: 'listDynadataTypes',
    summary: 'List all Dynadata types',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    response: dd.listTypesResponse,
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/list',
    group: 'dynadata',
    operationId: 'listDynadataItems',
    summary: 'List items of a type',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    params: typeParam,
    body: dd.listItemsBody,
    response: dd.listItemsResponse,
    errors: ['not_found'],
    examples: {
      request: { filter: { name: { prefix: 'Ada' } }, sort: { field: '_id', order: 'desc' }, limit: 25 },
    },
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/type/{type}/item/{_id}',
    group: 'dynadata',
    operationId: 'getDynadataItem',
    summary: 'Retrieve one item',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    params: itemParams,
    response: dd.dynadataItemSchema,
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/create',
    group: 'dynadata',
    operationId: 'createDynadataItem',
    summary: 'Create an item',
    tag: 'Dynadata',
    scope: 'dynadata:write',
    params: typeParam,
    body: dd.itemFieldsBody,
    response: dd.dynadataItemSchema,
    successStatus: 201,
    idempotent: true,
    writesItemsOfType: true,
    errors: ['not_found', 'forbidden', 'payload_too_large', 'invalid_storage_reference', 'conflict'],
    examples: { request: { name: 'Ada Lovelace', emails: [{ label: 'work', address: 'ada@example.org' }] } },
    documented: { body: 'item-fields' },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/update',
    group: 'dynadata',
    operationId: 'updateDynadataItem',
    summary: 'Update an existing item',
    tag: 'Dynadata',
    scope: 'dynadata:write',
    params: typeParam,
    body: dd.updateItemBody,
    response: dd.dynadataItemSchema,
    writesItemsOfType: true,
    errors: ['not_found', 'forbidden', 'payload_too_large', 'invalid_storage_reference', 'conflict'],
  }),
  route({
    method: 'DELETE',
    path: '/v1/dynadata/type/{type}/item/{_id}',
    group: 'dynadata',
    operationId: 'deleteDynadataItem',
    summary: 'Delete an item',
    tag: 'Dynadata',
    scope: 'dynadata:write',
    params: itemParams,
    response: dd.deleteItemResponse,
    writesItemsOfType: true,
    errors: ['not_found', 'forbidden', 'conflict'],
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/validate',
    group: 'dynadata',
    operationId: 'validateDynadataItem',
    summary: 'Validate an item without saving it',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    params: typeParam,
    body: dd.itemFieldsBody,
    response: dd.validateItemResponse,
    errors: ['not_found', 'invalid_storage_reference'],
    documented: { body: 'item-fields' },
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/type/{type}/schema',
    group: 'dynadata',
    operationId: 'getDynadataSchema',
    summary: 'JSON Schema of a type',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    params: typeParam,
    response: dd.jsonSchemaResponse,
    errors: ['not_found'],
  }),
  route({
    method: 'GET',
    path: '/v1/dynadata/type/{type}/schema/{library}',
    group: 'dynadata',
    operationId: 'getDynadataLibrarySchema',
    summary: 'Schema of a type in a validation-library format',
    tag: 'Dynadata',
    scope: 'dynadata:read',
    params: typeParam.extend({
      library: z.string().min(1).max(32).describe('Lowercase name of the validation library, e.g. `zod`.'),
    }),
    response: dd.librarySchemaResponse,
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/executeFunction/{functionName}',
    group: 'dynadata',
    operationId: 'executeDynadataTypeFunction',
    summary: 'Execute a function on a type',
    tag: 'Dynadata',
    scope: 'dynadata:execute',
    params: typeParam.extend({ functionName: z.string().min(1).max(64) }),
    body: dd.executeFunctionBody,
    response: dd.executeFunctionResponse,
    idempotent: true,
    errors: ['not_found', 'invalid_storage_reference'],
    documented: dd.executeFunctionDocumented,
    examples: {
      request: { filter: { name: { prefix: 'Ada' } } },
      response: { count: 3, complete: true, cursor: null },
    },
  }),
  route({
    method: 'POST',
    path: '/v1/dynadata/type/{type}/item/{_id}/executeFunction/{functionName}',
    group: 'dynadata',
    operationId: 'executeDynadataItemFunction',
    summary: 'Execute a function on one item',
    tag: 'Dynadata',
    scope: 'dynadata:execute',
    params: itemParams.extend({ functionName: z.string().min(1).max(64) }),
    body: dd.executeFunctionBody,
    response: dd.executeFunctionResponse,
    idempotent: true,
    errors: ['not_found', 'invalid_storage_reference'],
    documented: dd.executeFunctionDocumented,
  }),
  route({
    method: 'POST',
    path: '/v1/storage/upload-url',
    group: 'storage',
    operationId: 'createUploadUrl',
    summary: 'Step 1: reserve a signed upload URL',
    tag: 'Storage',
    scope: 'storage:write',
    body: uploadUrlBodySchema,
    response: uploadUrlResponseSchema,
    errors: ['payload_too_large'],
    examples: { request: { fileName: 'greeting.wav', contentType: 'audio/wav', size: 96044 } },
  }),
  route({
    method: 'POST',
    path: '/v1/storage/upload-complete',
    group: 'storage',
    operationId: 'completeUpload',
    summary: 'Step 2: finalize an upload',
    tag: 'Storage',
    scope: 'storage:write',
    body: storageReferenceBodySchema,
    response: storedObjectResponseSchema,
    errors: ['not_found', 'invalid_storage_reference', 'upload_mismatch', 'storage_limit_reached'],
    examples: { request: { fullPath: 'companies/co_01jd3xq0a6/uploads/01jd3xq0b2/greeting.wav' } },
  }),
  route({
    method: 'GET',
    path: '/v1/storage/url',
    group: 'storage',
    operationId: 'createDownloadUrl',
    summary: 'Signed download URL, valid for up to 7 days',
    tag: 'Storage',
    scope: 'storage:read',
    query: downloadUrlQuerySchema,
    response: downloadUrlResponseSchema,
    errors: ['not_found', 'invalid_storage_reference'],
  }),
  route({
    method: 'POST',
    path: '/v1/transcriptions',
    group: 'transcriptions',
    operationId: 'createTranscription',
    summary: 'Enqueue a transcription job',
    description:
      'Transcribes one of your stored audio files (or the sound of a video), asynchronously. Answers 202 ' +
      'with the job; poll GET /v1/transcriptions/{id}. When `done`, the job has the text, the timed words and ' +
      'the transcript as JSON, SRT and WebVTT stored objects. A source whose content (ETag and size) was ' +
      'already transcribed in the same language is reused (`reused: true`, nothing billed). 429 ' +
      "`transcription_quota_exceeded` when the month's transcription seconds are used up; 429 " +
      "`transcription_queue_full` (Retry-After) at the plan's cap of unfinished jobs.",
    tag: 'Transcriptions',
    scope: 'transcriptions:write',
    body: createTranscriptionBodySchema,
    response: transcriptionJobResponseSchema,
    successStatus: 202,
    idempotent: true,
    errors: [
      'not_found',
      'invalid_storage_reference',
      'transcription_quota_exceeded',
      'transcription_queue_full',
      'service_unavailable',
    ],
    examples: {
      request: { fullPath: 'companies/co_01jd3xq0a6/uploads/01jd3xq0b2/call.wav', language: 'en-US' },
    },
  }),
  route({
    method: 'GET',
    path: '/v1/transcriptions/{id}',
    group: 'transcriptions',
    operationId: 'getTranscription',
    summary: 'Fetch a transcription job',
    tag: 'Transcriptions',
    scope: 'transcriptions:read',
    params: jobId,
    response: transcriptionJobResponseSchema,
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/transcodes',
    group: 'transcodes',
    operationId: 'createTranscode',
    summary: 'Enqueue a media transform job',
    description:
      'Converts one of your stored audio or video files to a preset format, asynchronously. Answers 202 with ' +
      'the job; poll GET /v1/transcodes/{id}. A source whose content (ETag and size) was already converted ' +
      'to the same preset is reused (`reused: true`, nothing billed). 429 `transcode_quota_exceeded` when ' +
      "the month's transcode seconds are used up; 429 `transcode_queue_full` (Retry-After) at the plan's " +
      'cap of unfinished jobs.',
    tag: 'Media transforms',
    scope: 'transcodes:write',
    body: createTranscodeBodySchema,
    response: transcodeJobResponseSchema,
    successStatus: 202,
    errors: [
      'not_found',
      'invalid_storage_reference',
      'transcode_quota_exceeded',
      'transcode_queue_full',
      'service_unavailable',
    ],
    examples: {
      request: { fullPath: 'companies/co_01jd3xq0a6/uploads/01jd3xq0b2/greeting.wav', preset: 'ogg_opus' },
    },
  }),
  route({
    method: 'GET',
    path: '/v1/transcodes/{id}',
    group: 'transcodes',
    operationId: 'getTranscode',
    summary: 'Fetch a media transform job',
    tag: 'Media transforms',
    scope: 'transcodes:read',
    params: jobId,
    response: transcodeJobResponseSchema,
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/transcodes/{id}/cancel',
    group: 'transcodes',
    operationId: 'cancelTranscode',
    summary: 'Cancel an unfinished job',
    description:
      'Moves a `pending`, `probing`, `transcoding` or `finalizing` job to `canceled`, clears its worker lease ' +
      'and stops its conversion. A finished job answers 409 `transcode_job_not_cancelable` with its `status`.',
    tag: 'Media transforms',
    scope: 'transcodes:write',
    params: jobId,
    response: transcodeJobResponseSchema,
    errors: ['not_found', 'transcode_job_not_cancelable', 'conflict'],
  }),
  route({
    method: 'POST',
    path: '/v1/transcodes/{id}/retry',
    group: 'transcodes',
    operationId: 'retryTranscode',
    summary: 'Re-run a failed or canceled job',
    description:
      'Re-runs a `failed` or `canceled` job from scratch as the next `attempt`, subject to the same quota and ' +
      'queue checks as enqueueing. Any other state, or a worker lease still in the future, answers 409 ' +
      '`transcode_job_not_retryable`.',
    tag: 'Media transforms',
    scope: 'transcodes:write',
    params: jobId,
    response: transcodeJobResponseSchema,
    successStatus: 202,
    errors: [
      'not_found',
      'transcode_job_not_retryable',
      'transcode_quota_exceeded',
      'transcode_queue_full',
      'service_unavailable',
    ],
  }),
  route({
    method: 'POST',
    path: '/v1/speech',
    group: 'speech',
    operationId: 'synthesizeSpeech',
    summary: 'Synthesize text into a stored audio object',
    description:
      'Synchronous: when the call returns, the audio is one of your stored objects under ' +
      '`companies/<companyId>/speech/` (download it with GET /v1/storage/url). Text over 3000 characters is ' +
      'synthesized in parts split at sentence, then word, boundaries and joined into one file. A character ' +
      'is a Unicode code point (an emoji is one) for the 4096 limit and the bill alike. Bills ' +
      "`characters` (those of the parts sent to the engine) to the voice's `meter` once; 429 `speech_quota_exceeded` (Retry-After) when the month's " +
      'allowance would be passed; 403 `storage_limit_reached` past the storage allowance. A failed synthesis ' +
      'bills nothing and leaves nothing behind. Honours Idempotency-Key.',
    tag: 'Speech',
    scope: 'speech:write',
    body: speechRequestSchema,
    response: z.object({
      bucket: z.string(),
      fullPath: z.string().describe('Stored object path under `companies/<companyId>/speech/`.'),
      size: z.number().int().min(0).describe('Bytes.'),
      format: z.enum(SPEECH_FORMATS),
      durationSeconds: z.number().min(0),
      characters: z.number().int().min(0).describe('Characters billed.'),
      meter: z.enum(METERS).describe('The meter that was billed.'),
    }),
    successStatus: 201,
    idempotent: true,
    errors: ['speech_quota_exceeded', 'storage_limit_reached', 'service_unavailable'],
    examples: { request: { text: 'Your order has shipped.', format: 'mp3' } },
  }),
  route({
    method: 'GET',
    path: '/v1/speech/voices',
    group: 'speech',
    operationId: 'listSpeechVoices',
    summary: 'List the voice profiles',
    tag: 'Speech',
    scope: 'speech:write',
    response: z.object({
      voices: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          language: z.string(),
          gender: z.enum(['female', 'male']),
          engine: z.string(),
          meter: z.enum(METERS),
          default: z.boolean(),
        }),
      ),
    }),
  }),
  route({
    method: 'POST',
    path: '/v1/spoken-text',
    group: 'speech',
    operationId: 'rewriteSpokenText',
    summary: 'Rewrite markdown into its spoken form',
    description:
      'Parses the markdown (CommonMark with GFM) and rewrites it for the ear: headings become sentences, ' +
      'markers are dropped, links read as their text, lists as "First, … Second, …", tables row by row, code ' +
      'blocks are skipped with a short note, symbols and abbreviations are spoken and emoji dropped. The text ' +
      'is at most 1200 `o200k_base` tokens, cut at a sentence boundary (`truncated: true`); `parts` splits it ' +
      'at sentence boundaries into pieces of at most 4096 characters, ready for POST /v1/speech.',
    tag: 'Speech',
    scope: 'speech:write',
    body: spokenTextRequestSchema,
    response: z.object({
      text: z.string().describe('The spoken form.'),
      tokens: z.number().int().min(0).describe('Length of `text` in o200k_base tokens (at most 1200).'),
      truncated: z
        .boolean()
        .describe('True when the text was cut at a sentence boundary to fit 1200 tokens.'),
      parts: z
        .array(z.string().max(4096))
        .describe('`text` split at sentence boundaries, each ≤ 4096 characters.'),
    }),
    examples: { request: { markdown: '# Release notes\n\n- **Faster** uploads & 20% less memory' } },
  }),
  route({
    method: 'GET',
    path: '/v1/usage',
    group: 'usage',
    operationId: 'getUsage',
    summary: 'Tenant usage snapshot',
    tag: 'Usage',
    scope: 'usage:read',
    query: z.object({
      granularity: z.enum(['month', 'day']).optional().describe('UTC month (default) or UTC day so far.'),
    }),
    response: z.object({ success: z.literal(true), usage: usageSnapshotSchema }),
    errors: ['not_found'],
  }),
  route({
    method: 'GET',
    path: '/v1/workflows',
    group: 'workflows',
    operationId: 'listWorkflows',
    summary: "The company's workflows",
    description:
      'Every workflow the company has saved (operators manage definitions with the admin CLI), with its ' +
      'current version, name and description. Run one with POST /v1/workflows/{id}/run.',
    tag: 'Workflows',
    scope: 'workflows:read',
    response: z.object({ workflows: z.array(wf.workflowSummarySchema) }),
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}',
    group: 'workflows',
    operationId: 'getWorkflow',
    summary: 'A workflow definition',
    description:
      'The current version of a definition: its input schema, ordered steps (action, `with`, ' +
      "`allowFailure`) and `return` object. An unknown id, or another company's, answers 404 `not_found`.",
    tag: 'Workflows',
    scope: 'workflows:read',
    params: wf.workflowIdParams,
    response: z.object({ workflow: wf.workflowSchema }),
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/workflows/{id}/run',
    group: 'workflows',
    operationId: 'runWorkflow',
    summary: 'Run a manual workflow',
    description:
      '`sync` (the default) answers 200 with the finished run; check `ok`: a run whose steps failed without ' +
      '`allowFailure` is `partial` with `error.code` `workflow_steps_failed` and `failedSteps`. A sync run ' +
      'that cannot finish before the deadline (below the gateway timeout) continues asynchronously and ' +
      'answers 202 `{runId}`, as `async` does; poll GET /v1/workflows/{id}/runs/{runId}. Each run adds 1 to ' +
      '`workflow_runs`: 429 `workflow_quota_exceeded` (Retry-After) once the month is used up. Honours ' +
      'Idempotency-Key. A token a step mints (`actions/security/auth/jwt/generate`) is in this answer only, ' +
      'once: the stored run, its event and a replay of the same Idempotency-Key show ' +
      '`{"redacted": true, "jti", "expiresAt"}`; an async run cannot mint one (`jwt_requires_sync_run`).',
    tag: 'Workflows',
    scope: 'workflows:run',
    params: wf.workflowIdParams,
    body: wf.runWorkflowBodySchema,
    response: wf.syncRunResponseSchema,
    alsoAnswers: [
      {
        status: 202,
        description: 'Accepted: the run continues asynchronously',
        response: wf.acceptedRunResponseSchema,
      },
    ],
    idempotent: true,
    errors: ['not_found', 'workflow_quota_exceeded', 'service_unavailable'],
    examples: { request: { mode: 'sync', input: { contactId: '01jd3xq0b2' } } },
  }),
  route({
    method: 'GET',
    path: '/v1/workflows/{id}/runs/{runId}',
    group: 'workflows',
    operationId: 'getWorkflowRun',
    summary: "Fetch a run's status and durable outputs",
    description:
      '`status` is `running`, `success`, `partial` or `failed` (the run itself could not complete). With ' +
      '`includeStepOutputs=true`, the persisted output of each step of a run started with `includeStepOutputs`. ' +
      'A secret a step produced (a minted token) is kept as `{"redacted": true, "jti", "expiresAt"}`.',
    tag: 'Workflows',
    scope: 'workflows:read',
    params: wf.workflowIdParams.extend({ runId: z.string().min(1).max(64).describe('Run identifier.') }),
    query: z.object({
      includeStepOutputs: z
        .enum(['true', 'false'])
        .optional()
        .describe('Include the persisted step outputs.'),
    }),
    response: z.object({ run: wf.workflowRunSchema }),
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/mcp',
    group: 'mcp',
    operationId: 'mcp',
    summary: 'Model Context Protocol server (tools for agents)',
    description:
      'Streamable HTTP, stateless (no session id), JSON answers: POST one JSON-RPC 2.0 message per request. ' +
      'Tools: `get_transcode_job`, `get_transcription_job`, `get_usage`, `get_workflow_run`, ' +
      '`list_dynadata_types`, ' +
      '`list_dynadata_items`, `get_dynadata_item`, `create_dynadata_item`, `update_dynadata_item`, ' +
      '`delete_dynadata_item`. Each calls the same code as its route and needs the same scope; a refusal is a ' +
      'tool result with `isError: true` whose text is the problem the route would answer (same `code` and ' +
      '`detail`). Also takes `Authorization: Bearer <API key or JWT>`, after the three credential headers. ' +
      'Each HTTP request counts as one `api_requests`. GET and DELETE answer 405 (no server-sent stream, no ' +
      'session to end).',
    tag: 'MCP',
    scope: 'authenticated',
    body: jsonRpcMessageSchema,
    response: jsonRpcResponseSchema,
    emptyAnswers: { 202: 'The message was a notification: accepted, nothing to answer.' },
    examples: MCP_EXAMPLES,
  }),
  route({
    method: 'GET',
    path: '/v1/docs',
    group: 'public',
    operationId: 'getDocsPage',
    summary: 'Interactive documentation of this API',
    description:
      'An HTML page (Swagger UI) rendered in the browser from GET /v1/openapi.json. Its script and styles are ' +
      'served by this API (GET /v1/docs/assets/{asset}); it requests nothing from any other host. Paste an API ' +
      'key under "Authorize" to try operations against this deployment. Not metered.',
    tag: 'Meta',
    scope: 'public',
    response: z.string().describe('The HTML page.'),
    produces: ['text/html'],
  }),
  route({
    method: 'GET',
    path: '/v1/docs/assets/{asset}',
    group: 'public',
    operationId: 'getDocsAsset',
    summary: 'A script, style sheet or icon of the documentation page',
    description:
      'Names carry a content hash, so an asset is cached for a year (`immutable`); gzip-encoded when the ' +
      'client accepts it. An unknown name answers 404 `not_found`. Not metered.',
    tag: 'Meta',
    scope: 'public',
    params: z.object({
      asset: z.string().min(1).max(128).describe('Asset file name, as the page links it.'),
    }),
    response: z.string().describe('The asset.'),
    produces: ['text/javascript', 'text/css', 'image/png'],
    errors: ['not_found'],
  }),
  ...EVENT_ROUTES,
] as const satisfies readonly RouteDefinition[];

export type Route = (typeof ROUTES)[number];
export type OperationId = Route['operationId'];
export type RouteOf<O extends OperationId> = Extract<Route, { operationId: O }>;

/** REST API resource path of a route: the `v1` stage supplies the `/v1` prefix on AWS. */
export const apiResourcePath = (path: string): string => path.replace(/^\/v1(?=\/)/, '');

export const routeKey = (method: string, resourcePath: string): string => `${method} ${resourcePath}`;

export const findRouteByResource = (method: string, resourcePath: string): RouteDefinition | undefined =>
  ROUTES.find((r) => r.method === method && apiResourcePath(r.path) === resourcePath);
