import { CONTACTS_SCHEMA } from '../domain/dynadata/builtin-types';
import { ERROR_CATALOG, type ErrorCode } from '../errors';
import { ROUTE_DOCS } from '../routes/route-docs';
import { type OperationId, ROUTES, type RouteDefinition } from '../routes/route-table';
import { MAX_WORKFLOW_HOP, WORKFLOW_HOP_HEADER } from '../workflow-hops';
import * as z from '../zod';
import { AUTHENTICATION_SECTION, SECURITY_SCHEMES } from './openapi-auth';
import { MAX_JSON_BODY_BYTES, MAX_JSON_DEPTH, MAX_NUMBER_MAGNITUDE, MIN_NUMBER_MAGNITUDE } from './request';

/**
 * The OpenAPI 3.0 document, generated from the route table: every operation declares every status it can
 * answer, and under each error status the problem `code`s it can carry (an enum), so a client can branch on
 * them and the contract tests can hold the API to them.
 *
 * The codes of an operation are those of the chain it runs through (`chainCodes`) plus those its own work
 * declares in the route table (`errors`). A method a path lacks answers 405 with `Allow` on every path (that
 * answer belongs to no operation, so it is described in `info.description`).
 */
type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io,
    unrepresentable: 'any',
  });
  return rest;
};

/** Codes every route of its kind can answer, whatever its own work: the chain's and API Gateway's. */
export const chainCodes = (route: RouteDefinition): ErrorCode[] => {
  const gated = route.scope !== 'public';
  // A route open to any credential checks finer scopes inside its answer (MCP tools), never as a 403.
  const scoped = gated && route.scope !== 'authenticated';
  return [
    'internal',
    'throttled',
    // Every request is refused deeper than the workflow hop limit (`http/workflow-hop.ts`).
    'hop_limit_exceeded',
    // Refused at the edge before any route runs: a URL over 8192 bytes, request line and headers too large.
    'uri_too_long',
    'request_header_fields_too_large',
    ...(route.planned ? (['not_implemented'] as const) : (['validation_failed'] as const)),
    ...(gated ? (['unauthorized', 'forbidden', 'quota_exceeded'] as const) : []),
    ...(scoped ? (['insufficient_scope'] as const) : []),
    // API Gateway refuses a body over 10 MB on any route with one; the media type is checked when it is read.
    ...(route.body ? (['payload_too_large'] as const) : []),
    ...(route.body && !route.planned ? (['unsupported_media_type'] as const) : []),
    ...(route.idempotent && !route.planned
      ? (['idempotency_key_reused', 'idempotency_request_in_progress'] as const)
      : []),
    ...(route.writesItemsOfType ? (['log_entry_writes_not_allowed'] as const) : []),
  ];
};

/** Every problem code an operation can answer, by HTTP status. */
export const codesByStatus = (route: RouteDefinition): Map<number, ErrorCode[]> => {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...chainCodes(route), ...(route.errors ?? [])])) {
    const { status } = ERROR_CATALOG[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
};

const PROBLEM_EXTENSIONS: Record<string, JsonSchema> = {
  errors: {
    type: 'array',
    description:
      'Every violation, each with a JSON pointer rooted at `/body`, `/query`, `/params` or `/path`.',
    items: {
      type: 'object',
      required: ['pointer', 'message'],
      properties: { pointer: { type: 'string' }, message: { type: 'string' } },
    },
  },
  requiredScope: { type: 'string', description: '`insufficient_scope`: the scope the credential lacks.' },
  meter: { type: 'string', description: 'Quota codes: the meter whose monthly allowance is used up.' },
  limit: { type: 'integer', description: 'The limit that was reached (quota, queue cap, size in bytes).' },
  used: { type: 'integer', description: '`transcode_quota_exceeded`: what the month has used so far.' },
  jobStatus: { type: 'string', description: 'Job codes: the status the job is in.' },
  leaseUntil: { type: 'string', format: 'date-time', description: 'A worker holds the job until then.' },
  currentVersion: { type: 'integer', description: '`conflict` on update: the item version now stored.' },
  maxItemBytes: { type: 'integer', description: '`payload_too_large` on items: the largest item accepted.' },
  supportedLibraries: {
    type: 'array',
    items: { type: 'string' },
    description: 'Schema libraries `GET …/schema/{library}` supports.',
  },
  declared: {
    type: 'object',
    description: '`upload_mismatch`: the size and content type that were reserved.',
    properties: { size: { type: 'integer' }, contentType: { type: 'string' } },
  },
  received: {
    type: 'object',
    description: '`upload_mismatch`: the size and content type that were uploaded.',
    properties: { size: { type: 'integer' }, contentType: { type: 'string' } },
  },
  allow: {
    type: 'array',
    items: { type: 'string' },
    description: '`method_not_allowed`: the methods served.',
  },
  supportedLanguages: {
    type: 'array',
    items: { type: 'string' },
    description: 'A transcription language this deployment cannot use: the languages it can.',
  },
};

const problemSchema: JsonSchema = {
  type: 'object',
  description:
    'RFC 9457 problem details with a stable machine-readable `code` (branch on `code`, not on `title` or ' +
    '`detail`). Members beyond the standard ones appear only with the codes they belong to.',
  required: ['type', 'title', 'status', 'code', 'detail', 'requestId'],
  // Every member a problem can carry is declared: the contract tests refuse any other.
  additionalProperties: false,
  properties: {
    type: { type: 'string', description: '`urn:problem-type:<code>`' },
    title: { type: 'string' },
    status: { type: 'integer', description: 'The HTTP status, repeated.' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOG) },
    detail: { type: 'string', description: 'What happened, for a person.' },
    requestId: { type: 'string', description: 'Also sent as the `x-request-id` header.' },
    ...PROBLEM_EXTENSIONS,
  },
};

/**
 * A Dynadata (JSON Schema 2020-12) schema as an OpenAPI 3.0 schema object: a list of types becomes `anyOf`
 * (with `nullable` for `null`), the dialect's root keywords go. Built-in schemas are small and fixed, so the
 * recursion is bounded by their depth.
 */
const toOpenApi30 = (schema: JsonSchema): JsonSchema => {
  const { $schema: _dialect, 'x-indexed': _indexed, type, ...rest } = schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, s]) => [name, toOpenApi30(s)]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object') {
      out[key] = toOpenApi30(value as JsonSchema);
    } else out[key] = value;
  }
  if (!Array.isArray(type)) return type === undefined ? out : { type, ...out };
  const types = (type as string[]).filter((t) => t !== 'null');
  const nullable = types.length < type.length ? { nullable: true } : {};
  return types.length === 1
    ? { type: types[0], ...nullable, ...out }
    : { anyOf: types.map((t, i) => ({ type: t, ...(i === 0 ? nullable : {}) })), ...out };
};

const contactFields = toOpenApi30(CONTACTS_SCHEMA);

/** The body of a Dynadata item write: a contact's fields, or a custom type's (generic here). */
const itemFieldsSchema = (generic: JsonSchema): JsonSchema => ({
  description: generic.description,
  anyOf: [
    { $ref: '#/components/schemas/ContactFields' },
    {
      ...generic,
      description:
        'The fields of a custom type, as `GET /v1/dynadata/type/{type}/schema` describes them (no system fields).',
    },
  ],
});

const requestBodySchema = (route: RouteDefinition): JsonSchema => {
  const documented = route.documented?.body;
  if (documented === 'item-fields') return itemFieldsSchema(toSchema(route.body as z.ZodType, 'input'));
  return toSchema(documented ?? (route.body as z.ZodType), 'input');
};

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });

const HEADERS = {
  RequestId: header(
    'Identifier of the request, also `requestId` in problem bodies; quote it in support requests.',
  ),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer', minimum: 1 }),
  IdempotentReplayed: header(
    '`true` when the answer is the stored answer of an earlier request with the same key.',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
};
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is not valid',
  401: 'No valid credential',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Too large',
  414: 'URL too long',
  415: 'Not JSON',
  422: 'Idempotency key reused with another request',
  429: 'Too many requests or a monthly allowance used up',
  431: 'Request line and headers too large',
  500: 'Internal error; the body carries no internals',
  501: 'Declared, not available yet',
  503: 'Temporarily unavailable',
};

const errorResponse = (status: number, codes: ErrorCode[]) => ({
  description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
  headers: {
    'x-request-id': headerRef('RequestId'),
    ...(status === 429 || codes.includes('idempotency_request_in_progress')
      ? { 'Retry-After': headerRef('RetryAfter') }
      : {}),
  },
  content: {
    'application/problem+json': {
      schema: {
        allOf: [
          { $ref: '#/components/schemas/Problem' },
          { type: 'object', properties: { code: { enum: codes } } },
        ],
      },
    },
  },
});

/** Query parameters documented as integers are integers on the wire too: a string pattern would only confuse. */
const parameterSchema = (property: JsonSchema): JsonSchema => {
  const { description: _d, ...rest } = property;
  if (rest.type === 'integer') delete rest.pattern;
  return rest;
};

const parametersOf = (route: RouteDefinition) => {
  const out: Record<string, unknown>[] = [];
  const add = (location: 'path' | 'query', schema: z.ZodObject | undefined) => {
    if (!schema) return;
    const json = toSchema(schema, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      out.push({
        name,
        in: location,
        required: location === 'path' || (json.required ?? []).includes(name),
        description: property.description ?? name,
        schema: parameterSchema(property),
      });
    }
  };
  add('path', route.params);
  add('query', route.query);
  if (route.idempotent && !route.planned) out.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (route.operationId === 'runWorkflow') out.push({ $ref: '#/components/parameters/WorkflowHop' });
  return out;
};

const DEFAULT_SECURITY = [{ apiKey: [] }, { jwtToken: [] }, { authToken: [] }];

/** The route's prose and examples: its own, else those of `routes/route-docs.ts`. */
const docsOf = (route: RouteDefinition) => {
  const docs = ROUTE_DOCS[route.operationId as OperationId];
  return {
    description: route.description ?? docs?.description,
    request: route.examples?.request ?? docs?.examples?.request,
    response: route.examples?.response ?? docs?.examples?.response,
  };
};

/** The content of a successful answer: JSON by its schema, or the raw media types the route produces. */
const successContent = (route: RouteDefinition) => {
  if (route.produces) {
    return Object.fromEntries(
      route.produces.map((type) => [
        type,
        { schema: type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } },
      ]),
    );
  }
  return {
    'application/json': {
      schema: toSchema(route.documented?.response ?? route.response, 'output'),
      ...(docsOf(route).response === undefined ? {} : { example: docsOf(route).response }),
    },
  };
};

const scopeText = (scope: RouteDefinition['scope']): string =>
  scope === 'public'
    ? 'Needs no credential.'
    : scope === 'authenticated'
      ? 'Takes any valid credential; each tool needs its own scope.'
      : `Scope: \`${scope}\`.`;

const operationOf = (route: RouteDefinition) => {
  const isPublic = route.scope === 'public';
  const success = String(route.successStatus ?? 200);
  const errorResponses = Object.fromEntries(
    [...codesByStatus(route)].map(([status, codes]) => [String(status), errorResponse(status, codes)]),
  );
  const description = [
    docsOf(route).description ?? `${route.summary}.`,
    scopeText(route.scope),
    route.planned ? 'Not available yet: answers 501 `not_implemented`.' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    operationId: route.operationId,
    summary: route.summary,
    description,
    tags: [route.tag],
    ...(isPublic
      ? { security: [] }
      : route.scope === 'authenticated'
        ? { security: [...DEFAULT_SECURITY, { bearer: [] }] }
        : { 'x-required-scope': route.scope }),
    parameters: parametersOf(route),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: requestBodySchema(route),
                ...(docsOf(route).request === undefined ? {} : { example: docsOf(route).request }),
              },
            },
          },
        }
      : {}),
    responses: {
      [success]: {
        description: route.planned ? 'Not available yet' : 'Success',
        headers: {
          'x-request-id': headerRef('RequestId'),
          ...(route.idempotent ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') } : {}),
        },
        content: successContent(route),
      },
      ...Object.fromEntries(
        (route.alsoAnswers ?? []).map((also) => [
          String(also.status),
          {
            description: also.description,
            headers: {
              'x-request-id': headerRef('RequestId'),
              // A replay answers what the first request answered, whichever status that was.
              ...(route.idempotent ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') } : {}),
            },
            content: { 'application/json': { schema: toSchema(also.response, 'output') } },
          },
        ]),
      ),
      ...Object.fromEntries(
        Object.entries(route.emptyAnswers ?? {}).map(([status, description]) => [
          status,
          { description, headers: { 'x-request-id': headerRef('RequestId') } },
        ]),
      ),
      ...errorResponses,
    },
  };
};

/** One tag per area of the API, in the order of the specification. */
const TAGS: { name: string; description: string }[] = [
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

/** The OpenAPI 3.0 document of every live route, generated from the route table. */
export const buildOpenApiDocument = (serverUrl = '/'): Record<string, unknown> => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operationOf(route);
  }
  const usedTags = new Set<string>(ROUTES.map((r) => r.tag));
  return {
    openapi: '3.0.3',
    info: {
      title: 'Messaging and Dynamic Data Service: Public REST API',
      version: '1.0.0',
      description:
        'Acts on behalf of one company (tenant): its profile, messages to its contacts, its typed data ' +
        '(Dynadata), files, transcriptions, media transforms, speech and usage. The same reads and Dynadata ' +
        'writes are tools of an MCP server for agents (POST /v1/mcp).\n\n' +
        `${AUTHENTICATION_SECTION}\n\n## Errors and limits\n\n` +
        'Errors are `application/problem+json` with a stable `code`; every ' +
        'response carries `x-request-id`. Each operation lists the statuses and codes it can answer. Every ' +
        'path answers a method it does not list with 405 `method_not_allowed` and an `Allow` header (`HEAD` ' +
        'and `OPTIONS` included), and an unknown path with 404 `not_found`. Query parameters an operation ' +
        `does not list, or list once but receive twice, are refused with 400. A body member an operation does ` +
        'not declare is refused with 400 `validation_failed` at its pointer, never ignored (request schemas ' +
        'say `additionalProperties: false`); the fields of a Dynadata item are checked by its type schema. ' +
        `JSON bodies are at most ` +
        `${MAX_JSON_BODY_BYTES} bytes, valid UTF-8, nested at most ${MAX_JSON_DEPTH} levels deep, and their numbers ` +
        `are 0 or of a magnitude from ${MIN_NUMBER_MAGNITUDE} to below ${MAX_NUMBER_MAGNITUDE}. A request whose ` +
        `\`${WORKFLOW_HOP_HEADER}\` header (sent by workflow HTTP actions) is above ${MAX_WORKFLOW_HOP} is ` +
        'refused with 400 `hop_limit_exceeded`, one that is not a decimal integer with 400 ' +
        '`validation_failed`. All codes: ' +
        Object.entries(ERROR_CATALOG)
          .map(([code, { status }]) => `\`${code}\` (${status})`)
          .join(', ') +
        '.',
      // Each deployment's operator supports its own tenants: the document names the role, not an address.
      contact: { name: 'The operator of this deployment' },
      license: { name: 'Proprietary: use is governed by the terms of the operator of this deployment' },
    },
    servers: [{ url: serverUrl, description: 'This deployment (paths include the `/v1` stage).' }],
    tags: TAGS.filter((t) => usedTags.has(t.name)),
    security: DEFAULT_SECURITY,
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      headers: HEADERS,
      parameters: {
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
      },
      schemas: {
        Problem: problemSchema,
        ContactFields: { ...contactFields, title: 'Contact fields' },
      },
    },
  };
};
