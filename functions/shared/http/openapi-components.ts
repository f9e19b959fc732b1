import type { JsonSchema } from '../domain/dynadata/json-schema-shapes';
import { MAX_WORKFLOW_HOP, WORKFLOW_HOP_HEADER } from '../workflow-hops';
import * as z from '../zod';

/**
 * The shared parts of the OpenAPI document: zod schemas as OpenAPI 3.0 schema objects, the response headers
 * and header parameters every operation refers to, and the tags (one per area of the API).
 */

/**
 * Named schemas (definitions as zod converts them, by id): a zod schema that carries `.meta({ id })` (a resource such as `TranscodeJob`, an event payload)
 * becomes `#/components/schemas/<id>` wherever it appears, so a generated client has one type to import for it.
 * The request form of a schema is named `<id>Input` and folded into `<id>` when the two are the same
 * (`namedSchemas`).
 */
const NAMED: Record<'input' | 'output', Map<string, JsonSchema>> = { input: new Map(), output: new Map() };
const DEFINITION = '#/definitions/';
const componentName = (id: string, io: 'input' | 'output') => (io === 'input' ? `${id}Input` : id);

const isReference = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 1 && '$ref' in value;

/**
 * References to named schemas, and the nullable ones typed: OpenAPI 3.0 needs `type` beside `nullable`, which
 * zod leaves out of `{nullable, allOf: [{$ref}]}` (every named schema is an object).
 */
const withComponentRefs = (value: unknown, io: 'input' | 'output'): unknown => {
  if (Array.isArray(value)) return value.map((v) => withComponentRefs(v, io));
  if (typeof value !== 'object' || value === null) return value;
  if ('nullable' in value && 'allOf' in value && !('type' in value))
    return withComponentRefs({ type: 'object', ...value }, io);
  // zod wraps the reference of an optional member as `{allOf: [{$ref}]}`: the reference alone says the same.
  const [only, ...more] = 'allOf' in value && Array.isArray(value.allOf) ? value.allOf : [];
  if (Object.keys(value).length === 1 && more.length === 0 && isReference(only))
    return withComponentRefs(only, io);
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) =>
      key === '$ref' && typeof v === 'string' && v.startsWith(DEFINITION)
        ? [key, `#/components/schemas/${componentName(v.slice(DEFINITION.length), io)}`]
        : [key, withComponentRefs(v, io)],
    ),
  );
};

export const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const converted = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' });
  const {
    $schema: _ignored,
    definitions,
    ...rest
  } = converted as JsonSchema & {
    definitions?: Record<string, JsonSchema>;
  };
  for (const [id, definition] of Object.entries(definitions ?? {})) NAMED[io].set(id, definition);
  return withComponentRefs(rest, io) as JsonSchema;
};

/**
 * The named schemas the document's operations referred to, and the document with each `<id>Input` that equals
 * its `<id>` folded into it. Call after every operation was converted.
 */
export const withNamedSchemas = <D>(document: D): { document: D; schemas: Record<string, JsonSchema> } => {
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, output] of NAMED.output) schemas[id] = withComponentRefs(output, 'output') as JsonSchema;
  const folded = new Set<string>();
  for (const [id, input] of NAMED.input) {
    const output = NAMED.output.get(id);
    if (output !== undefined && JSON.stringify(input) === JSON.stringify(output)) folded.add(id);
    else schemas[componentName(id, 'input')] = withComponentRefs(input, 'input') as JsonSchema;
  }
  let text = JSON.stringify(document);
  for (const id of folded)
    text = text.replaceAll(`"#/components/schemas/${id}Input"`, `"#/components/schemas/${id}"`);
  for (const [name, schema] of Object.entries(schemas)) {
    let s = JSON.stringify(schema);
    for (const id of folded)
      s = s.replaceAll(`"#/components/schemas/${id}Input"`, `"#/components/schemas/${id}"`);
    schemas[name] = JSON.parse(s) as JsonSchema;
  }
  return { document: JSON.parse(text) as D, schemas };
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
  RateLimitPolicy: header(
    'The company\'s request rate (draft-ietf-httpapi-ratelimit-headers): `"company";q=<burst>;w=<seconds to refill ' +
      "an empty bucket>`. Sent where the edge meters the rate itself (the local stack); API Gateway's usage " +
      'plans enforce the same rate without it.',
  ),
  RateLimit: header(
    'What is left of the company\'s request rate: `"company";r=<requests left now>;t=<seconds until the bucket ' +
      'is full>`; `r=0` on a 429. Sent with `RateLimit-Policy`.',
  ),
  WwwAuthenticate: header(
    'The authentication challenge, `Bearer realm="api"` (RFC 6750): a JWT as a bearer token, or an API key in ' +
      '`x-api-key`.',
    { type: 'string', enum: ['Bearer realm="api"'] },
  ),
  Deprecation: header(
    'Sent when the request used a deprecated input (RFC 9745): when it was deprecated, `@<epoch seconds>`. The ' +
      "operation's parameters say which inputs are deprecated and what replaces them.",
    { type: 'string', maxLength: 21, pattern: '^@-?[0-9]{1,19}$' },
  ),
  Sunset: header(
    'Sent with `Deprecation` (RFC 8594): the HTTP-date from which the deprecated input may stop working.',
    {
      type: 'string',
      maxLength: 29,
      pattern: '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$',
    },
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

/** The IETF RateLimit fields, on the answers of gated operations where the edge meters the company's rate. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': headerRef('RateLimitPolicy'),
  RateLimit: headerRef('RateLimit'),
};

/** Request header parameters operations refer to. */
export const PARAMETERS = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'An `ETag` this resource answered before: 304 without a body while the resource still has it.',
    schema: { type: 'string', maxLength: 1024, pattern: '^[\\x20-\\x7e]+$' },
  },
  IfNoneMatchCreate: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      '`*`: create only. When the resource exists nothing changes and the answer is 412 `precondition_failed`.',
    schema: { type: 'string', enum: ['*'] },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The `ETag` of the resource as last read (`GET` of the same resource): the change happens only while the ' +
      'resource still has it, otherwise 412 `precondition_failed` and nothing changes.',
    schema: { type: 'string', maxLength: 1024, pattern: '^[\\x20-\\x7e]+$' },
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
    schema: { type: 'string', maxLength: 1, pattern: '^[0-3]$' },
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
    name: 'API keys',
    description:
      'The company’s own keys (scope `keys:admin`): create restricted keys (scopes, addresses, expiry) and ' +
      'revoke them; a secret is shown once.',
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
