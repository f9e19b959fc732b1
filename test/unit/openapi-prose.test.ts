import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { ROUTE_DOCS } from '../../functions/shared/routes/route-docs';
import { ROUTES, type RouteDefinition } from '../../functions/shared/routes/route-table';

type Operation = {
  summary: string;
  description: string;
  tags: string[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
};
const doc = buildOpenApiDocument() as {
  info: { description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { description?: string }> };
};
const operation = (method: string, path: string) => doc.paths[path]?.[method.toLowerCase()] as Operation;

/** The routes a reader starts with: each shows a request (where it takes a body) and an answer. */
const MAIN = [
  'listPublicPlans',
  'getSelf',
  'sendMessage',
  'listDynadataTypes',
  'listDynadataItems',
  'getDynadataItem',
  'createDynadataItem',
  'updateDynadataItem',
  'createTranscode',
  'getTranscode',
  'getUsage',
  'mcp',
];

describe('the OpenAPI document reads well', () => {
  it('describes every operation beyond its summary', () => {
    for (const route of ROUTES as readonly RouteDefinition[]) {
      const own = route.description ?? ROUTE_DOCS[route.operationId as keyof typeof ROUTE_DOCS]?.description;
      expect(own, route.operationId).toBeTruthy();
      expect(operation(route.method, route.path).description.length, route.operationId).toBeGreaterThan(
        route.summary.length + 40,
      );
    }
  });

  it('shows request and response examples for the main routes', () => {
    for (const id of MAIN) {
      const route = (ROUTES as readonly RouteDefinition[]).find((r) => r.operationId === id);
      if (!route) throw new Error(`no route ${id}`);
      const op = operation(route.method, route.path);
      if (route.body) expect(op.requestBody?.content['application/json']?.example, id).toBeDefined();
      const success = op.responses[String(route.successStatus ?? 200)];
      expect(success?.content?.['application/json']?.example, id).toBeDefined();
    }
  });

  it('describes every tag in use, and explains each authentication scheme and their precedence', () => {
    const used = new Set(ROUTES.map((r) => r.tag));
    expect(doc.tags.map((t) => t.name).sort()).toEqual([...used].sort());
    for (const tag of doc.tags) expect(tag.description.length, tag.name).toBeGreaterThan(30);
    for (const [name, scheme] of Object.entries(doc.components.securitySchemes))
      expect(scheme.description?.length, name).toBeGreaterThan(60);
    expect(doc.info.description).toContain('## Authentication');
    expect(doc.info.description).toMatch(/x-jwt-token`, then `x-api-key`, then `x-auth-token`/);
  });
});
