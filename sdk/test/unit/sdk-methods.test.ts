import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../functions/shared/http/openapi';
import { ROUTES } from '../../../functions/shared/routes/route-table';
import { operationTable } from '../../scripts/operation-table';
import {
  parseSdkName,
  resourceTree,
  resourceTreeSource,
  type SdkMethodFacts,
} from '../../scripts/sdk-methods';

/**
 * The resource methods' names (`x-sdk-method`, one per route declaration): well formed, unique, published in
 * the document, and built into one tree; the names the SDK keeps for itself and a clash fail the build.
 */
const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Record<string, unknown>;
const table = operationTable(document);
const methods = Object.fromEntries(
  Object.entries(table).flatMap(([id, facts]) => (facts.sdk ? [[id, facts.sdk]] : [])),
) as Record<string, SdkMethodFacts>;

const facts = (name: string, extra: Partial<SdkMethodFacts> = {}): SdkMethodFacts => ({
  name,
  bound: [],
  args: [],
  query: [],
  body: null,
  waiter: null,
  ...extra,
});

describe('the SDK method names', () => {
  it('every route declares one, and the document publishes it as x-sdk-method', () => {
    for (const route of ROUTES) {
      const name =
        route.sdk === null ? undefined : typeof route.sdk === 'string' ? route.sdk : route.sdk.method;
      expect(methods[route.operationId]?.name, route.operationId).toBe(name);
    }
    // What the SDK does not offer: the MCP endpoint (an MCP client speaks it), the documentation page and assets.
    expect(ROUTES.filter((r) => r.sdk === null).map((r) => r.operationId)).toEqual([
      'mcp',
      'getDocsPage',
      'getDocsAsset',
    ]);
  });

  it('are well formed and unique', () => {
    const names = Object.values(methods).map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^([a-z][a-zA-Z0-9]*(\([A-Za-z_][A-Za-z0-9_]*\))?\.)+[a-z][a-zA-Z0-9]*$/);
      expect(() => parseSdkName(name)).not.toThrow();
    }
    expect(() => resourceTree(methods)).not.toThrow();
  });

  it('take the path parameters a name does not bind as arguments, in path order', () => {
    expect(methods.getWorkflowRun).toMatchObject({ name: 'workflows.runs.get', args: ['id', 'runId'] });
    expect(methods.getDynadataItem).toMatchObject({
      name: 'dynadata.items(type).get',
      bound: ['type'],
      args: ['_id'],
    });
    expect(methods.createTranscode).toMatchObject({ args: [], body: 'required', query: [] });
    expect(methods.listTranscodes).toMatchObject({
      body: null,
      query: ['limit', 'cursor', 'status', 'createdAfter', 'createdBefore'],
    });
  });

  it('give every job type and run a waiter whose final states come from the status schema', () => {
    const waiters = Object.fromEntries(
      Object.values(methods).flatMap((m) => (m.waiter ? [[m.name, m.waiter]] : [])),
    );
    expect(waiters).toEqual({
      'transcodes.get': { name: 'waitUntilDone', member: 'job', final: ['done', 'failed', 'canceled'] },
      'transcriptions.get': { name: 'waitUntilDone', member: 'job', final: ['done', 'failed'] },
      'speech.jobs.get': { name: 'waitUntilDone', member: 'job', final: ['done', 'failed', 'canceled'] },
      'workflows.runs.get': {
        name: 'waitUntilDone',
        member: 'run',
        final: ['success', 'partial', 'failed', 'canceled'],
      },
    });
    const source = resourceTreeSource(methods, (id) => table[id]?.page !== null);
    expect(source).toContain(
      'waitUntilDone: Waiter<"getTranscode", ["id"], "job", "done" | "failed" | "canceled">;',
    );
    expect(source).toContain('list: ListMethod<"listTranscodes", []>;');
    expect(source).toContain('items: (type: PathParams<"batchDynadataItems">["type"]) => {');
  });

  it('refuse a malformed name, a name used twice, a method that is also a namespace, a reserved name', () => {
    for (const bad of ['transcodes', 'Transcodes.get', 'transcodes.get(id)', 'transcodes..get', 'a-b.get']) {
      expect(() => parseSdkName(bad), bad).toThrow('not well formed');
    }
    expect(() => resourceTree({ a: facts('things.get'), b: facts('things.get') })).toThrow('declared twice');
    expect(() => resourceTree({ a: facts('things.get'), b: facts('things.get.all') })).toThrow('clashes');
    expect(() => resourceTree({ a: facts('storage.upload') })).toThrow('keeps for itself');
    expect(() =>
      resourceTree({
        a: facts('things(x).get', { bound: ['x'] }),
        b: facts('things(y).list', { bound: ['y'] }),
      }),
    ).toThrow('binds');
  });

  it('refuse a waiter whose member has no final states', () => {
    const broken = {
      paths: {
        '/v1/things/{id}': {
          get: {
            operationId: 'getThing',
            'x-sdk-method': 'things.get',
            'x-sdk-waiter': { member: 'thing' },
            parameters: [{ name: 'id', in: 'path' }],
            responses: {
              200: {
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: { thing: { type: 'object', properties: { status: {} } } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    expect(() => operationTable(broken)).toThrow('x-final-states');
  });
});
