import { MAX_WORKFLOW_HOP, WORKFLOW_HOP_HEADER } from '../workflow-hops';
import * as z from '../zod';

/**
 * The shared parts of the OpenAPI document: zod schemas as OpenAPI 3.0 schema objects, the response headers
 * and header parameters every operation refers to, and the tags (one per area of the API).
 */
export type JsonSchema = Record<string, unknown>;

export const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io,
    unrepresentable: 'any',
  });
  return rest;
};

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

export const HEADERS = {
  RequestId: header(
    'Identifier of the request, also `requestId` in problem bodies; quote it in support requests.',
  ),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer', minimum: 1 }),
  ETag: header(
    'The tag of the resource as answered: send it as `If-None-Match` to read it again only if it changed (304 ' +
      'otherwise), or as `If-Match` to change or delete it only if nobody else did (412 otherwise).',
  ),
  WwwAuthenticate: header(
    'The authentication challenge, `Bearer realm="api"` (RFC 6750): a JWT as a bearer token, or an API key in ' +
      '`x-api-key`.',
    { type: 'string', enum: ['Bearer realm="api"'] },
  ),
  IdempotentReplayed: header(
    '`true` when the answer is the stored answer of an earlier request with the same key.',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
};
export const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Request header parameters operations refer to. */
export const PARAMETERS = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An `ETag` this resource answered before: 304 without a body while the resource still has it.',
    schema: { type: 'string', maxLength: 1024 },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The `ETag` of the resource as last read (`GET` of the same resource): the change happens only while the ' +
      'resource still has it, otherwise 412 `precondition_failed` and nothing changes.',
    schema: { type: 'string', maxLength: 1024 },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the request safe to retry: within 24 hours the same key with the same request answers the ' +
      'first answer again (`Idempotent-Replayed: true`); with another request, 422 ' +
      '`idempotency_key_reused`; while the first still runs, 409 `idempotency_request_in_progress`.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  },
  WorkflowHop: {
    name: WORKFLOW_HOP_HEADER,
    in: 'header',
    required: false,
    description:
      'Set by workflow HTTP actions, never by hand: how many workflow runs deep this request is (absent: ' +
      `0). The run records it, and its HTTP steps send one more; above ${MAX_WORKFLOW_HOP} any request ` +
      'is refused with 400 `hop_limit_exceeded`, so a workflow cannot start itself in a loop.',
    schema: { type: 'string', pattern: '^[0-3]$' },
  },
};

/** One tag per area of the API, in the order of the specification. */
export const TAGS: { name: string; description: string }[] = [
  {
    name: 'Plans',
    description:
      'The public plan catalog: what each plan costs and allows. No credential needed, not metered.',
  },
  {
    name: 'Meta',
    description:
      'This document (GET /v1/openapi.json) and its interactive page (GET /v1/docs), both public and not ' +
      'metered.',
  },
  {
    name: 'Company',
    description: 'The company the credential acts for: start here to check a key (GET /v1/self).',
  },
  {
    name: 'Contacts',
    description:
      'Messages to contacts (items of the built-in type `contacts`), delivered asynchronously to the ' +
      'company’s webhook channel and recorded as items of the type `messages`.',
  },
  {
    name: 'Dynadata',
    description:
      'Typed data of the company: built-in types (`contacts`, `messages`, and `log_entries`, the read-only ' +
      'audit trail of API traffic) and custom types, each with a JSON Schema, sortable fields, paged ' +
      'filtered lists and functions.',
  },
  {
    name: 'Storage',
    description:
      'Files of the company under `companies/<companyId>/`: upload in two steps (signed URL, then complete), ' +
      'download through signed URLs. A stored file is named by its storage reference `{bucket, fullPath}`.',
  },
  {
    name: 'Transcriptions',
    description: 'Asynchronous speech-to-text jobs on stored audio or video: enqueue, then poll the job.',
  },
  {
    name: 'Media transforms',
    description:
      'Asynchronous conversions of stored audio and video to presets (`mp4`, `ogg_opus`, `wav`, ' +
      '`flac_16k_mono`): enqueue, poll, cancel, retry.',
  },
  {
    name: 'Speech',
    description: 'Text synthesized into a stored audio file, and markdown rewritten into its spoken form.',
  },
  {
    name: 'Usage',
    description:
      'Meters, compute time, storage, the plan’s limits and the subscription period of the company.',
  },
  { name: 'Workflows', description: 'Company-defined workflows, run synchronously or asynchronously.' },
  {
    name: 'MCP',
    description:
      'A Model Context Protocol server for agents (Streamable HTTP, stateless, JSON): the job and usage reads ' +
      'and the Dynadata reads and writes as tools, each under the scope of its route.',
  },
  { name: 'Webhooks', description: 'Endpoints that receive events, signed (Standard Webhooks) and retried.' },
  { name: 'Events', description: 'Finished jobs, messages and runs, and usage thresholds: 30 days kept.' },
];
