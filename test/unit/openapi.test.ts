import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../../functions/shared/errors';
import { buildOpenApiDocument } from '../../functions/shared/http/openapi';
import { ROUTES } from '../../functions/shared/routes/route-table';

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument() as {
    paths: Record<
      string,
      Record<string, { operationId: string; security?: unknown[]; 'x-required-scope'?: string }>
    >;
    components: { schemas: { Problem: { properties: { code: { enum: string[] } } } } };
  };

  it('has exactly one operation per route of the table', () => {
    const ops = Object.entries(doc.paths).flatMap(([p, m]) =>
      Object.entries(m).map(([k, o]) => `${k} ${p} ${o.operationId}`),
    );
    expect(ops.sort()).toEqual(
      ROUTES.map((r) => `${r.method.toLowerCase()} ${r.path} ${r.operationId}`).sort(),
    );
  });

  it('marks public routes as needing no security and shows every other route’s scope', () => {
    for (const r of ROUTES) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      if (r.scope === 'public') expect(op?.security).toEqual([]);
      else if (r.scope === 'authenticated') {
        // Any credential, the bearer form included; each MCP tool checks its own scope.
        expect(op?.['x-required-scope']).toBeUndefined();
        expect(op?.security).toContainEqual({ bearer: [] });
      } else expect(op?.['x-required-scope']).toBe(r.scope);
    }
  });

  it('lists every error code', () => {
    expect(doc.components.schemas.Problem.properties.code.enum.sort()).toEqual(
      Object.keys(ERROR_CATALOG).sort(),
    );
  });
});
