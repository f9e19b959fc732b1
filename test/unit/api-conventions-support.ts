import type { JsonSchema } from '../../functions/shared/domain/dynadata/json-schema-shapes';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { toSchema } from '../../functions/shared/http/openapi-components';
import { type OperationId, ROUTES, type RouteDefinition } from '../../functions/shared/routes/route-table';

/**
 * What the tests of the API's conventions (docs/openapi.md, Conventions) read of the route table and of the
 * OpenAPI document: each rule's test file keeps its own table of rows and asks these for the route, its
 * answers and its operation in the document.
 */

/** The route of an operation; a row naming an operation the table lacks fails here. */
export const routeOf = (operationId: OperationId | string): RouteDefinition => {
  const found = (ROUTES as readonly RouteDefinition[]).find((r) => r.operationId === operationId);
  if (!found) throw new Error(`no route ${operationId}`);
  return found;
};

export interface SuccessAnswer {
  status: number;
  schema: JsonSchema;
}

/** Every successful JSON answer a route declares: its success status and each of `alsoAnswers`. */
export const successAnswers = (route: RouteDefinition): SuccessAnswer[] => [
  { status: route.successStatus ?? 200, schema: toSchema(route.response, 'output') },
  ...(route.alsoAnswers ?? []).map((also) => ({
    status: also.status,
    schema: toSchema(also.response, 'output'),
  })),
];

/** The members an answer schema requires. */
export const requiredMembers = (schema: JsonSchema): string[] => (schema.required as string[]) ?? [];

/** The schema of one member of an answer schema. */
export const memberSchema = (schema: JsonSchema, member: string): JsonSchema | undefined =>
  (schema.properties as Record<string, JsonSchema> | undefined)?.[member];

interface DocumentResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }>;
}

let document: { paths: Record<string, Record<string, { responses: Record<string, DocumentResponse> }>> };

/** The responses of a route's operation in the OpenAPI document (built once). */
export const documentResponses = (route: RouteDefinition): Record<string, DocumentResponse> => {
  document ??= buildOpenApiDocument() as typeof document;
  const operation = document.paths[route.path]?.[route.method.toLowerCase()];
  if (!operation) throw new Error(`no operation for ${route.method} ${route.path}`);
  return operation.responses;
};

export const routes = ROUTES as readonly RouteDefinition[];
