import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/shared/routes/route-table';
import { call, demoApiKey, expectProblem } from './support';

/** Operations available so far; every other declared route answers 501 until its issue lands. */
const IMPLEMENTED = new Set([
  'listPublicPlans',
  'getOpenApiDocument',
  'getSelf',
  'getUsage',
  'createUploadUrl',
  'completeUpload',
  'createDownloadUrl',
]);
// Media transforms
for (const id of ['createTranscode', 'getTranscode', 'cancelTranscode', 'retryTranscode'])
  IMPLEMENTED.add(id);
// Transcriptions
for (const id of ['createTranscription', 'getTranscription']) IMPLEMENTED.add(id);
for (const id of ['synthesizeSpeech', 'listSpeechVoices', 'rewriteSpokenText']) IMPLEMENTED.add(id);
// Dynadata and messaging.
for (const op of ROUTES.filter((r) => r.group === 'dynadata' || r.group === 'contacts'))
  IMPLEMENTED.add(op.operationId);
// Webhook endpoints and events.
for (const op of ROUTES.filter((r) => r.group === 'events')) IMPLEMENTED.add(op.operationId);

const concretePath = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

describe('declared routes', () => {
  const declared = ROUTES.filter((r) => !IMPLEMENTED.has(r.operationId));

  it.each(declared.map((r) => [r.operationId, r] as const))(
    '%s answers 501 not_implemented with a credential',
    async (_id, route) => {
      const res = await call(route.method, concretePath(route.path), {
        headers: { 'x-api-key': demoApiKey },
        ...(route.method === 'POST' ? { body: {} } : {}),
      });
      expectProblem(res, 501, 'not_implemented');
    },
  );

  it.each(declared.map((r) => [r.operationId, r] as const))(
    '%s still requires a credential (401 without one)',
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
