import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiUrl, call, createTenant, expectProblem, runAdmin } from './support';

/**
 * Names that JavaScript objects already have (`constructor`, `toString`, …) are data wherever a client
 * chooses a name: stored and answered exactly, or refused with 400 and a pointer, never a 500.
 */
const OBJECT_NAMES = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
];

describe('member names JavaScript objects already have', () => {
  it('are stored and answered exactly in Dynadata items, at any depth, and filter like any field', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const attributes = Object.fromEntries(OBJECT_NAMES.map((name) => [name, `${name}-value`]));
    const created = await call('POST', '/v1/dynadata/type/contacts/create', {
      headers,
      body: { name: 'Proto', attributes },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const id = String(created.json._id);
    const read = await call('GET', `/v1/dynadata/type/contacts/item/${id}`, { headers });
    expect(read.status).toBe(200);
    expect(read.json.attributes).toEqual(attributes);

    for (const field of ['constructor', 'toString']) {
      const listed = await call('POST', '/v1/dynadata/type/contacts/list', {
        headers,
        body: { filter: { [field]: { eq: 'nothing' } } },
      });
      // Not a field of contacts, like any other unknown name: refused at its own pointer.
      expectProblem(listed, 400, 'validation_failed');
      expect(listed.json.errors).toEqual([{ pointer: `/body/filter/${field}`, message: expect.any(String) }]);
    }
  });

  it('may be optional fields of a custom type and of a workflow input: items and runs that leave them out pass', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const optional = ['toString', 'constructor', 'valueOf', 'hasOwnProperty'];
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        ...Object.fromEntries(optional.map((n) => [n, { type: 'string' }])),
      },
      required: ['title'],
      additionalProperties: false,
    };
    const dir = mkdtempSync(join(tmpdir(), 'member-names-'));
    writeFileSync(join(dir, 'schema.json'), JSON.stringify(schema));
    const put = await runAdmin(
      'types',
      'put',
      '--company',
      t.companyId,
      '--name',
      'notes',
      '--file',
      join(dir, 'schema.json'),
      '--json',
    );
    expect(put.code, put.err).toBe(0);

    const created = await call('POST', '/v1/dynadata/type/notes/create', { headers, body: { title: 'a' } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const updated = await call('POST', '/v1/dynadata/type/notes/update', {
      headers,
      body: { _id: created.json._id, title: 'b' },
    });
    expect(updated.status, JSON.stringify(updated.json)).toBe(200);
    const validated = await call('POST', '/v1/dynadata/type/notes/validate', {
      headers,
      body: { title: 'c' },
    });
    expect(validated.json).toEqual({ valid: true, errors: [] });
    // Given with the wrong type, they are refused like any field.
    const wrong = await call('POST', '/v1/dynadata/type/notes/create', {
      headers,
      body: { title: 'a', toString: 1 },
    });
    expectProblem(wrong, 400, 'validation_failed');
    expect(wrong.json.errors).toEqual([{ pointer: '/body/toString', message: 'must be string' }]);

    const saved = await call('PUT', '/v1/workflows/member-names', {
      headers,
      body: {
        name: 'Member names',
        input: schema,
        steps: [
          {
            id: 'say',
            action: 'actions/speech/spoken-text',
            with: { markdown: '# {{ input.title }}{{ input.toString }}' },
          },
          {
            id: 'note',
            action: 'actions/dynadata/create',
            with: { type: 'notes', item: { title: '{{ input.title }}' } },
          },
        ],
        return: { toString: '{{ input.toString }}', said: '{{ steps.say.output.text }}' },
      },
    });
    expect(saved.status, JSON.stringify(saved.json)).toBe(201);
    const run = await call('POST', '/v1/workflows/member-names/run', {
      headers,
      body: { input: { title: 'Hello' } },
    });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    expect(run.json).toMatchObject({ ok: true, status: 'success', failedSteps: [] });

    // The MCP tool validates against the same schema.
    const tool = await call('POST', '/v1/mcp', {
      headers: { ...headers, accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_dynadata_item', arguments: { type: 'notes', item: { title: 'by tool' } } },
      },
    });
    expect(tool.status).toBe(200);
    const result = (tool.json.result ?? {}) as { isError?: boolean; structuredContent?: { title?: string } };
    expect(result.isError, JSON.stringify(tool.json)).not.toBe(true);
    expect(result.structuredContent?.title).toBe('by tool');
  });

  it('refuses a member named __proto__ anywhere in a body with 400 and its pointer', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey, 'content-type': 'application/json' };
    const cases: [string, string, string][] = [
      ['/v1/dynadata/type/contacts/create', '{"name":"x","__proto__":{"admin":true}}', '/body/__proto__'],
      [
        '/v1/dynadata/type/contacts/create',
        '{"name":"x","attributes":{"a":[{"__proto__":1}]}}',
        '/body/attributes/a/0/__proto__',
      ],
      ['/v1/dynadata/type/contacts/list', '{"filter":{"__proto__":{"eq":"x"}}}', '/body/filter/__proto__'],
    ];
    for (const [path, body, pointer] of cases) {
      const res = await fetch(`${apiUrl}${path}`, { method: 'POST', headers, body });
      const problem = (await res.json()) as { code: string; errors: { pointer: string }[] };
      expect(res.status, body).toBe(400);
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors.map((e) => e.pointer)).toEqual([pointer]);
    }
  });

  it('answer 4xx, never 5xx, as query parameter and header names', async () => {
    const t = await createTenant();
    for (const name of ['__proto__', ...OBJECT_NAMES]) {
      const query = await call('GET', `/v1/self?${name}=1`, { headers: { 'x-api-key': t.apiKey } });
      expectProblem(query, 400, 'validation_failed');
      const twice = await call('GET', `/v1/self?${name}=1&${name}=2`, { headers: { 'x-api-key': t.apiKey } });
      expectProblem(twice, 400, 'validation_failed');
      const header = await call('GET', '/v1/self', { headers: { 'x-api-key': t.apiKey, [name]: 'x' } });
      expect(header.status, name).toBe(200);
    }
  });
});
