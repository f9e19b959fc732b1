import { ERROR_CATALOG } from '../errors';
import { ROUTES, type RouteDefinition } from '../routes/route-table';
import { SCOPES } from '../types/scopes';
import * as z from '../zod';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io,
    unrepresentable: 'any',
  });
  return rest;
};

const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details with a stable machine-readable `code`.',
  required: ['type', 'title', 'status', 'code', 'detail', 'requestId'],
  properties: {
    type: { type: 'string', description: '`urn:problem-type:<code>`' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOG) },
    detail: { type: 'string' },
    requestId: { type: 'string', description: 'Also sent as the `x-request-id` header.' },
    errors: {
      type: 'array',
      description: 'Per-field violations (validation failures).',
      items: {
        type: 'object',
        required: ['pointer', 'message'],
        properties: {
          pointer: { type: 'string', description: 'JSON pointer, rooted at `/body`, `/query` or `/params`.' },
          message: { type: 'string' },
        },
      },
    },
  },
};

const problemRef = { $ref: '#/components/schemas/Problem' };
const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problemRef } },
});

const parametersOf = (route: RouteDefinition) => {
  const out: Record<string, unknown>[] = [];
  const add = (location: 'path' | 'query', schema: z.ZodObject | undefined) => {
    if (!schema) return;
    const json = toSchema(schema, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: location,
        required: location === 'path' || (json.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  };
  add('path', route.params);
  add('query', route.query);
  return out;
};

const operationOf = (route: RouteDefinition) => {
  const isPublic = route.scope === 'public';
  const success = String(route.successStatus ?? 200);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(isPublic
      ? { security: [] }
      : {
          'x-required-scope': route.scope,
          description: `${route.description ?? route.summary}. Scope: \`${route.scope}\`.`,
        }),
    parameters: parametersOf(route),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: toSchema(route.body, 'input') } },
          },
        }
      : {}),
    responses: {
      [success]: {
        description: 'Success',
        content: { 'application/json': { schema: toSchema(route.response, 'output') } },
      },
      '400': problemResponse('Invalid request (`validation_failed`)'),
      ...(isPublic
        ? {}
        : {
            '401': problemResponse('Missing or invalid credential (`unauthorized`)'),
            '403': problemResponse('Scope missing (`insufficient_scope`) or operation forbidden'),
            '429': problemResponse('Quota exceeded or throttled; see `Retry-After`'),
          }),
      '404': problemResponse('Not found (`not_found`)'),
      '500': problemResponse('Internal error (`internal`); the body carries no internals'),
      '501': problemResponse('Declared but not available yet (`not_implemented`)'),
    },
  };
};

/** The OpenAPI 3.0 document of every live route, generated from the route table. */
export const buildOpenApiDocument = (serverUrl = '/'): Record<string, unknown> => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operationOf(route);
  }
  const apiKeyDescription = `Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}.`;
  return {
    openapi: '3.0.3',
    info: {
      title: 'Messaging and Dynamic Data Service: Public REST API',
      version: '1.0.0',
      description:
        'Acts on behalf of one company. Errors are `application/problem+json` with a stable `code`; every ' +
        'response carries `x-request-id`. Error codes: ' +
        Object.entries(ERROR_CATALOG)
          .map(([code, { status }]) => `\`${code}\` (${status})`)
          .join(', ') +
        '.',
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }, { jwtToken: [] }, { authToken: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: `\`sk-\` API key. ${apiKeyDescription}`,
        },
        jwtToken: {
          type: 'apiKey',
          in: 'header',
          name: 'x-jwt-token',
          description: 'Short-lived JWT of kind `v1`.',
        },
        authToken: {
          type: 'apiKey',
          in: 'header',
          name: 'x-auth-token',
          description: 'Either an `sk-` key or a JWT.',
        },
      },
      schemas: { Problem: problemSchema },
    },
  };
};
