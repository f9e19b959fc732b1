import { CONTACTS_SCHEMA } from '../domain/dynadata/builtin-types';
import { DOCUMENT_FIELD_MAX_LENGTHS, type JsonSchema } from '../domain/dynadata/json-schema-shapes';
import { ERROR_CATALOG } from '../errors';
import type { Deprecation } from '../routes/route-definition';
import { ROUTE_DOCS } from '../routes/route-docs';
import {
  ALSO_ANSWER_EXAMPLES,
  MEDIA_EXAMPLES,
  REQUEST_EXAMPLES,
  RESPONSE_EXAMPLES,
} from '../routes/route-examples';
import { type OperationId, ROUTES, type RouteDefinition } from '../routes/route-table';
import { STEP_OUTCOME_CATALOG } from '../step-outcomes';
import { MAX_WORKFLOW_HOP, WORKFLOW_HOP_HEADER } from '../workflow-hops';
import type * as z from '../zod';
import { AUTHENTICATION_SECTION, SECURITY_SCHEMES } from './openapi-auth';
import {
  HEADERS,
  headerRef,
  PARAMETERS,
  RATE_LIMIT_HEADERS,
  TAGS,
  toSchema,
  withNamedSchemas,
} from './openapi-components';
import { webhookComponents, withDocumentNames } from './openapi-names';
import { codesByStatus, errorResponse, problemSchema } from './openapi-problems';

export { chainCodes, codesByStatus } from './openapi-problems';

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
/** The keywords of a schema that constrain only strings. */
const STRING_KEYWORDS = new Set(['minLength', 'maxLength', 'pattern', 'format']);

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
      const lengths = schema['x-document'] === true ? DOCUMENT_FIELD_MAX_LENGTHS : {};
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, s]) => [
          name,
          toOpenApi30(lengths[name] === undefined ? s : { ...s, maxLength: lengths[name] }),
        ]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object') {
      out[key] = toOpenApi30(value as JsonSchema);
    } else out[key] = value;
  }
  if (!Array.isArray(type)) return type === undefined ? out : { type, ...out };
  const types = (type as string[]).filter((t) => t !== 'null');
  const nullable = types.length < type.length ? { nullable: true } : {};
  if (types.length === 1) return { type: types[0], ...nullable, ...out };
  // The keywords that only constrain strings go to the string branch, where they apply.
  const stringOnly = Object.fromEntries(Object.entries(out).filter(([key]) => STRING_KEYWORDS.has(key)));
  const shared = Object.fromEntries(Object.entries(out).filter(([key]) => !STRING_KEYWORDS.has(key)));
  return {
    anyOf: types.map((t, i) => ({
      type: t,
      ...(i === 0 ? nullable : {}),
      ...(t === 'string' ? stringOnly : {}),
    })),
    ...shared,
  };
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

/**
 * Query parameters documented as integers or booleans are declared as such (a generated client passes `5` and
 * `true`); the pattern or the `'true' | 'false'` enum that parses their text on the wire would only confuse.
 */
const parameterSchema = (property: JsonSchema): JsonSchema => {
  const { description: _d, deprecated: _deprecated, ...rest } = property;
  if (rest.type === 'integer') delete rest.pattern;
  if (rest.type === 'boolean') delete rest.enum;
  return rest;
};

/** What a deprecated parameter's description adds: since when, until when, and what replaces it. */
const deprecationText = (d: Deprecation): string =>
  `Deprecated since ${d.since}: use \`${d.use}\`; it may stop working from ${d.sunset} (\`Sunset\`). A request ` +
  'that sends it is answered with `Deprecation` and `Sunset`.';

/** The headers of the answers of an operation with deprecated inputs (sent when one was used). */
const deprecationHeadersOf = (route: RouteDefinition) =>
  route.deprecatedQuery ? { Deprecation: headerRef('Deprecation'), Sunset: headerRef('Sunset') } : {};

const parametersOf = (route: RouteDefinition) => {
  const out: Record<string, unknown>[] = [];
  const add = (location: 'path' | 'query', schema: z.ZodObject | undefined) => {
    if (!schema) return;
    const json = toSchema(schema, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const deprecated = location === 'query' ? route.deprecatedQuery?.[name] : undefined;
      out.push({
        name,
        in: location,
        required: location === 'path' || (json.required ?? []).includes(name),
        description: [property.description ?? name, deprecated ? deprecationText(deprecated) : '']
          .filter(Boolean)
          .join(' '),
        ...(deprecated ? { deprecated: true } : {}),
        schema: parameterSchema(property),
      });
    }
  };
  add('path', route.params);
  add('query', route.query);
  if (route.idempotency === 'keyed' && !route.planned)
    out.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (route.operationId === 'runWorkflow') out.push({ $ref: '#/components/parameters/WorkflowHop' });
  if (route.etag) out.push({ $ref: '#/components/parameters/IfNoneMatch' });
  if (route.ifMatch) out.push({ $ref: '#/components/parameters/IfMatch' });
  if (route.createOnlyIfNoneMatch) out.push({ $ref: '#/components/parameters/IfNoneMatchCreate' });
  return out;
};

const DEFAULT_SECURITY = [{ apiKey: [] }, { jwtToken: [] }, { authToken: [] }];

/** The route's prose and examples: its own, else those of `routes/route-docs.ts`. */
const docsOf = (route: RouteDefinition) => {
  const docs = ROUTE_DOCS[route.operationId as OperationId];
  return {
    description: route.description ?? docs?.description,
    request:
      route.examples?.request ??
      docs?.examples?.request ??
      REQUEST_EXAMPLES[route.operationId as OperationId],
    response:
      route.examples?.response ??
      docs?.examples?.response ??
      RESPONSE_EXAMPLES[route.operationId as OperationId],
  };
};

const exampleOf = (example: unknown) => (example === undefined ? {} : { example });

/** The content of a successful answer: JSON by its schema, or the raw media types the route produces. */
const successContent = (route: RouteDefinition) => {
  if (route.successStatus === 204) return undefined;
  if (route.produces) {
    return Object.fromEntries(
      route.produces.map((type) => [
        type,
        {
          schema: type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' },
          ...(MEDIA_EXAMPLES[type] === undefined ? {} : { example: MEDIA_EXAMPLES[type] }),
        },
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

/** What each POST does with `Idempotency-Key`, in its description (`keyed` routes also declare the header). */
const IDEMPOTENCY_TEXT: Record<NonNullable<RouteDefinition['idempotency']> | 'none', string> = {
  keyed: '',
  repeatable:
    'Repeating this request changes nothing, so it needs no `Idempotency-Key` (one is accepted and unused).',
  refused:
    'One message may carry several tool calls, so `Idempotency-Key` is refused (400 `idempotency_key_not_supported`).',
  none: '',
};

const scopeText = (scope: RouteDefinition['scope']): string =>
  scope === 'public'
    ? 'Needs no credential.'
    : scope === 'authenticated'
      ? 'Takes any valid credential; each tool needs its own scope.'
      : `Scope: \`${scope}\`.`;

/** The MCP tools, from the table's `agent` marks: the MCP route's description lists each with its scope. */
const toolsText = (): string =>
  `Tools: ${ROUTES.flatMap((r: RouteDefinition) => (r.agent ? [`\`${r.agent.tool}\` (${r.scope})`] : [])).join(', ')}.`;

/**
 * The operation's SDK method (`x-sdk-method`) and, for a read the SDK polls, its waiter (`x-sdk-waiter`: the
 * answer's member whose `status` schema marks its final states with `x-final-states`). Decision 0043.
 */
const sdkExtensions = (sdk: RouteDefinition['sdk']) =>
  sdk === null
    ? {}
    : typeof sdk === 'string'
      ? { 'x-sdk-method': sdk }
      : { 'x-sdk-method': sdk.method, 'x-sdk-waiter': { member: sdk.waitUntilDone } };

const operationOf = (route: RouteDefinition) => {
  const isPublic = route.scope === 'public';
  const success = String(route.successStatus ?? 200);
  const errorResponses = Object.fromEntries(
    [...codesByStatus(route)].map(([status, codes]) => [
      String(status),
      errorResponse(status, codes, !isPublic),
    ]),
  );
  const description = [
    docsOf(route).description ?? `${route.summary}.`,
    route.describesTools ? toolsText() : '',
    scopeText(route.scope),
    route.planned ? 'Not available yet: answers 501 `not_implemented`.' : '',
    IDEMPOTENCY_TEXT[route.idempotency ?? 'none'],
  ]
    .filter(Boolean)
    .join(' ');
  return {
    operationId: route.operationId,
    ...sdkExtensions(route.sdk),
    summary: route.summary,
    description,
    tags: [route.tag],
    ...(isPublic
      ? { security: [] }
      : route.scope === 'authenticated'
        ? { security: [...DEFAULT_SECURITY, { bearer: [] }] }
        : { 'x-required-scope': route.scope }),
    ...(route.agent ? { 'x-mcp-tool': route.agent.tool } : {}),
    ...(route.workflow ? { 'x-workflow-action': route.workflow.action } : {}),
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
          ...(route.idempotency === 'keyed'
            ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') }
            : {}),
          ...(route.etag || route.answersEtag ? { ETag: headerRef('ETag') } : {}),
          ...deprecationHeadersOf(route),
          ...(route.scope === 'public' ? {} : RATE_LIMIT_HEADERS),
        },
        ...(route.successStatus === 204 ? {} : { content: successContent(route) }),
      },
      ...(route.etag
        ? {
            '304': {
              description: 'Not modified: `If-None-Match` names the current `ETag`; no body.',
              headers: { 'x-request-id': headerRef('RequestId'), ETag: headerRef('ETag') },
            },
          }
        : {}),
      ...Object.fromEntries(
        (route.alsoAnswers ?? []).map((also) => [
          String(also.status),
          {
            description: also.description,
            headers: {
              'x-request-id': headerRef('RequestId'),
              // A replay answers what the first request answered, whichever status that was.
              ...(route.idempotency === 'keyed'
                ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') }
                : {}),
              ...(route.answersEtag ? { ETag: headerRef('ETag') } : {}),
              ...(isPublic ? {} : RATE_LIMIT_HEADERS),
            },
            content: {
              'application/json': {
                schema: toSchema(also.response, 'output'),
                ...exampleOf(ALSO_ANSWER_EXAMPLES[route.operationId as OperationId]?.[also.status]),
              },
            },
          },
        ]),
      ),
      ...Object.fromEntries(
        Object.entries(route.emptyAnswers ?? {}).map(([status, description]) => [
          status,
          {
            description,
            headers: { 'x-request-id': headerRef('RequestId'), ...(isPublic ? {} : RATE_LIMIT_HEADERS) },
          },
        ]),
      ),
      ...errorResponses,
    },
  };
};

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * Every integer schema with its bounds and its `format`: a bound zod leaves open is the safe-integer bound
 * JSON numbers keep exact in JavaScript, and the format is `int32` when the bounds fit in 32 bits, else `int64`.
 * Examples are data, not schemas, and are left as they are.
 */
const withIntegerFormats = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withIntegerFormats);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node))
    out[key] = key === 'example' || key === 'examples' ? value : withIntegerFormats(value);
  if (out.type !== 'integer') return out;
  out.minimum ??= Number.MIN_SAFE_INTEGER;
  out.maximum ??= Number.MAX_SAFE_INTEGER;
  out.format ??=
    (out.minimum as number) >= INT32_MIN && (out.maximum as number) <= INT32_MAX ? 'int32' : 'int64';
  return out;
};

/** The OpenAPI 3.0 document of every live route, generated from the route table. */
export const buildOpenApiDocument = (serverUrl = '/'): Record<string, unknown> =>
  withDocumentNames(() => {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of ROUTES) {
      paths[route.path] ??= {};
      (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operationOf(route);
    }
    const usedTags = new Set<string>(ROUTES.map((r) => r.tag));
    const webhooks = webhookComponents((schema) => toSchema(schema, 'output'));
    const created = paths['/v1/webhooks']?.post as Record<string, unknown> | undefined;
    if (created) created.callbacks = webhooks.callbacks;
    const named = withNamedSchemas(paths);
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
          '. Codes a workflow run reports in its `error` and `failedSteps` beside those: ' +
          Object.keys(STEP_OUTCOME_CATALOG)
            .map((code) => `\`${code}\``)
            .join(', ') +
          '.',
        // Each deployment's operator supports its own tenants: the document names the role, not an address.
        contact: { name: 'The operator of this deployment' },
        license: { name: 'Proprietary: use is governed by the terms of the operator of this deployment' },
      },
      // A public API: its server is listed for every client (`x-internal: false`, the inventory's marker).
      servers: [
        {
          url: serverUrl,
          description: 'This deployment (paths include the `/v1` stage).',
          'x-internal': false,
        },
      ],
      tags: TAGS.filter((t) => usedTags.has(t.name)),
      security: DEFAULT_SECURITY,
      paths: withIntegerFormats(named.document),
      components: withIntegerFormats({
        securitySchemes: SECURITY_SCHEMES,
        headers: HEADERS,
        parameters: PARAMETERS,
        schemas: {
          Problem: problemSchema,
          ContactFields: { ...contactFields, title: 'Contact fields' },
          ...named.schemas,
          ...webhooks.schemas,
        },
      }),
    };
  });
