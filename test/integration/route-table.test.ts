import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/shared/routes/route-table';
import { call, demoApiKey, expectProblem } from './support';

/** Routes declared but not available yet (`planned: true`) answer 501 until they are built. */
const isPlanned = (route: (typeof ROUTES)[number]) => 'planned' in route && route.planned === true;

const concretePath = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

describe('declared routes', () => {
  const declared = ROUTES.filter(isPlanned);
  const gated = ROUTES.filter((r) => r.scope !== 'public');

  it.runIf(declared.length > 0).each(declared.map((r) => [r.operationId, r] as const))(
    '%s answers 501 not_implemented with a credential',
    async (_id, route) => {
      const res = await call(route.method, concretePath(route.path), {
        headers: { 'x-api-key': demoApiKey },
        ...(route.method === 'POST' ? { body: {} } : {}),
      });
      expectProblem(res, 501, 'not_implemented');
    },
  );

  it.each(gated.map((r) => [r.operationId, r] as const))(
    '%s requires a credential (401 without one)',
    async (_id, route) => {
      expectProblem(await call(route.method, concretePath(route.path)), 401, 'unauthorized');
    },
  );

  it('answers an unknown path with 404 problem+json', async () => {
    expectProblem(await call('GET', '/v1/does-not-exist'), 404, 'not_found');
    expectProblem(await call('GET', '/v2/self', { headers: { 'x-api-key': demoApiKey } }), 404, 'not_found');
  });

  it('answers a known path with an undeclared method with 405 problem+json and Allow', async () => {
    const res = await call('DELETE', '/v1/self', { headers: { 'x-api-key': demoApiKey } });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('serves the OpenAPI document without authentication, listing every route of the table', async () => {
    const res = await call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.0.3');
    const paths = res.json.paths as Record<string, Record<string, { operationId: string }>>;
    const operations = Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(operations.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path} ${r.operationId}`).sort());
  });
});
