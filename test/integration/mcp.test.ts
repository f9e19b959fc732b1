import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SigningKey } from '../../functions/shared/auth/jwt';
import type { Scope } from '../../functions/shared/types/scopes';
import { seedPendingSpeechJob } from './speech-job-support';
import { apiUrl, call, createTenant, expectProblem } from './support';
import { seedJob as seedTranscodeJob } from './transcode-support';
import { seedJob as seedTranscriptionJob } from './transcription-support';
import { getRun, runWorkflow, savedWorkflow } from './workflow-support';

const { signJwt } = await import('../../functions/shared/auth/jwt');
const { mintJwt } = await import('../../functions/shared/auth/jwt-mint');
const OPERATOR = { kind: 'operator' } as const;
const { currentSigningKey, loadKeySet } = await import('../../functions/shared/auth/signing-keys');

const MCP_URL = new URL(`${apiUrl}/v1/mcp`);
/** Every tool with its scope, in the order of the route table (written out: the server must match it). */
const SCOPE_OF_TOOL: Record<string, Scope> = {
  list_dynadata_types: 'dynadata:read',
  get_dynadata_type: 'dynadata:read',
  put_dynadata_type: 'dynadata:admin',
  list_dynadata_items: 'dynadata:read',
  get_dynadata_item: 'dynadata:read',
  create_dynadata_item: 'dynadata:write',
  update_dynadata_item: 'dynadata:write',
  delete_dynadata_item: 'dynadata:write',
  upsert_dynadata_item: 'dynadata:write',
  batch_dynadata_items: 'dynadata:write',
  create_transcode_job: 'transcodes:write',
  list_transcode_jobs: 'transcodes:read',
  get_transcode_job: 'transcodes:read',
  create_transcription_job: 'transcriptions:write',
  list_transcription_jobs: 'transcriptions:read',
  get_transcription_job: 'transcriptions:read',
  synthesize_speech: 'speech:write',
  create_speech_job: 'speech:write',
  list_speech_jobs: 'speech:read',
  get_speech_job: 'speech:read',
  send_message: 'messages:send',
  cancel_message: 'messages:send',
  list_contact_messages: 'dynadata:read',
  create_upload_url: 'storage:write',
  complete_upload: 'storage:write',
  get_download_url: 'storage:read',
  list_files: 'storage:read',
  delete_file: 'storage:write',
  get_usage: 'usage:read',
  get_usage_history: 'usage:read',
  list_workflows: 'workflows:read',
  get_workflow: 'workflows:read',
  run_workflow: 'workflows:run',
  list_workflow_runs: 'workflows:read',
  get_workflow_run: 'workflows:read',
  list_workflow_secrets: 'workflows:read',
  list_events: 'webhooks:read',
  get_event: 'webhooks:read',
  list_webhook_deliveries: 'webhooks:read',
};
const TOOL_NAMES = Object.keys(SCOPE_OF_TOOL);

const open: Client[] = [];
const connect = async (headers: Record<string, string>) => {
  const client = new Client({ name: 'integration-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(MCP_URL, { requestInit: { headers } }));
  open.push(client);
  return client;
};

type Problem = { code: string; detail: string; status: number; requiredScope?: string };
const problemOf = (result: unknown): Problem => {
  const r = result as CallToolResult;
  expect(r.isError).toBe(true);
  const first = r.content[0];
  if (first?.type !== 'text') throw new Error('a tool error carries its problem as text');
  return JSON.parse(first.text) as Problem;
};
const structured = (result: unknown) => {
  const r = result as CallToolResult;
  if (r.isError) throw new Error(`tool error: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Record<string, unknown>;
};

let key: SigningKey;
let tenant: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;
let client: Client;

const scopedToken = async (scopes: Scope[]) =>
  (await mintJwt({ companyId: tenant.companyId, source: OPERATOR, scopes, advanced: true }, key, new Date()))
    .token;

beforeAll(async () => {
  key = currentSigningKey(await loadKeySet());
  tenant = await createTenant({ plan: 'starter' });
  other = await createTenant();
  client = await connect({ 'x-api-key': tenant.apiKey });
});

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

describe('POST /v1/mcp: the MCP server', () => {
  it('initializes statelessly and lists exactly its tools, each with input and output schemas', async () => {
    expect(client.getServerVersion()?.name).toBe('messaging-dynadata-api');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description).toMatch(/Scope: [a-z]+:(read|write|run|send|admin)\./);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.get_transcode_job?.inputSchema.required).toEqual(['id']);
    expect(byName.list_dynadata_items?.inputSchema.required).toEqual(['type']);
    expect(Object.keys(byName.list_dynadata_items?.inputSchema.properties ?? {}).sort()).toEqual(
      ['cursor', 'fields', 'filter', 'limit', 'sort', 'type'].sort(),
    );
    expect(byName.create_dynadata_item?.inputSchema.required).toEqual(['type', 'item']);
    const hints = (name: string) => {
      const a = byName[name]?.annotations;
      return [a?.readOnlyHint, a?.destructiveHint, a?.idempotentHint, a?.openWorldHint];
    };
    expect(hints('get_usage')).toEqual([true, false, true, false]);
    expect(hints('list_dynadata_items')).toEqual([true, false, true, false]);
    expect(hints('create_dynadata_item')).toEqual([false, false, false, false]);
    expect(hints('update_dynadata_item')).toEqual([false, true, false, false]);
    expect(hints('delete_dynadata_item')).toEqual([false, true, true, false]);
    // The tool list never changes while a client is connected, so no `list_changed` notification is promised.
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
  });

  it('get_transcode_job answers the job exactly as GET /v1/transcodes/{id} shows it', async () => {
    const job = await seedTranscodeJob(tenant.companyId, 'done');
    const route = await call('GET', `/v1/transcodes/${job.jobId}`, {
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(route.status).toBe(200);
    const result = await client.callTool({ name: 'get_transcode_job', arguments: { id: job.jobId } });
    expect(structured(result)).toEqual(route.json.job);
  });

  it('get_transcription_job answers the job exactly as GET /v1/transcriptions/{id} shows it', async () => {
    const job = await seedTranscriptionJob(tenant.companyId, 'failed');
    const route = await call('GET', `/v1/transcriptions/${job.jobId}`, {
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(route.status).toBe(200);
    const result = await client.callTool({ name: 'get_transcription_job', arguments: { id: job.jobId } });
    expect(structured(result)).toEqual(route.json.job);
  });

  it('get_speech_job answers the job exactly as GET /v1/speech/jobs/{id} shows it', async () => {
    const job = await seedPendingSpeechJob(tenant.companyId);
    const route = await call('GET', `/v1/speech/jobs/${job.jobId}`, {
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(route.status).toBe(200);
    const result = await client.callTool({ name: 'get_speech_job', arguments: { id: job.jobId } });
    expect(structured(result)).toEqual(route.json.job);
  });

  it('reads speech jobs with speech:read, by API key, JWT and tool; speech:write alone does not read them', async () => {
    const job = await seedPendingSpeechJob(tenant.companyId);
    const reader = { 'x-jwt-token': await scopedToken(['speech:read']) };
    const writer = { 'x-jwt-token': await scopedToken(['speech:write']) };
    expect((await call('GET', `/v1/speech/jobs/${job.jobId}`, { headers: reader })).status).toBe(200);
    expect((await call('GET', '/v1/speech/jobs', { headers: reader })).status).toBe(200);
    const tool = await (await connect(reader)).callTool({
      name: 'get_speech_job',
      arguments: { id: job.jobId },
    });
    expect(structured(tool)).toMatchObject({ id: job.jobId });
    for (const path of [`/v1/speech/jobs/${job.jobId}`, '/v1/speech/jobs']) {
      const refused = await call('GET', path, { headers: writer });
      expectProblem(refused, 403, 'insufficient_scope');
      expect(refused.json.requiredScope).toBe('speech:read');
    }
    const refusedTool = problemOf(
      await (await connect(writer)).callTool({ name: 'get_speech_job', arguments: { id: job.jobId } }),
    );
    expect(refusedTool).toMatchObject({ code: 'insufficient_scope', requiredScope: 'speech:read' });

    const readOnly = await createTenant({ scopes: ['speech:read'] });
    const own = await seedPendingSpeechJob(readOnly.companyId);
    const byKey = await call('GET', `/v1/speech/jobs/${own.jobId}`, {
      headers: { 'x-api-key': readOnly.apiKey },
    });
    expect(byKey.status).toBe(200);
    expectProblem(
      await call('POST', `/v1/speech/jobs/${own.jobId}/cancel`, {
        headers: { 'x-api-key': readOnly.apiKey },
      }),
      403,
      'insufficient_scope',
    );
  });

  it('get_workflow_run answers the run exactly as GET /v1/workflows/{id}/runs/{runId} shows it', async () => {
    await savedWorkflow(tenant.companyId, {
      id: 'mcp-run',
      name: 'A token for the agent',
      input: { type: 'object', properties: {} },
      steps: [{ id: 'token', action: 'actions/security/auth/jwt/generate', with: { dur: 60 } }],
      return: { expiresAt: '{{ steps.token.output.expiresAt }}' },
    });
    const started = await runWorkflow(tenant.apiKey, 'mcp-run', { includeStepOutputs: true });
    expect(started.status).toBe(200);
    const runId = String(started.json.runId);
    const route = await getRun(tenant.apiKey, 'mcp-run', runId, '?includeStepOutputs=true');
    expect(route.status).toBe(200);
    const result = await client.callTool({
      name: 'get_workflow_run',
      arguments: { workflowId: 'mcp-run', runId, includeStepOutputs: true },
    });
    expect(structured(result)).toEqual(route.json.run);
    const elsewhere = await client.callTool({
      name: 'get_workflow_run',
      arguments: { workflowId: 'x', runId },
    });
    expect(problemOf(elsewhere)).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('list_workflows, run_workflow and list_workflow_runs answer as their routes do', async () => {
    await savedWorkflow(tenant.companyId, {
      id: 'mcp-tools',
      name: 'Spoken text',
      steps: [{ id: 'say', action: 'actions/speech/spoken-text', with: { markdown: '# Hi' } }],
      return: { text: '{{ steps.say.output.text }}' },
    });
    const headers = { 'x-api-key': tenant.apiKey };
    const listed = structured(await client.callTool({ name: 'list_workflows', arguments: {} }));
    expect(listed).toEqual((await call('GET', '/v1/workflows', { headers })).json);
    const ran = structured(
      await client.callTool({ name: 'run_workflow', arguments: { workflowId: 'mcp-tools' } }),
    );
    expect(ran).toMatchObject({ workflowId: 'mcp-tools', status: 'success', ok: true });
    expect(ran).toEqual((await getRun(tenant.apiKey, 'mcp-tools', String(ran.runId))).json.run);
    const runs = structured(
      await client.callTool({ name: 'list_workflow_runs', arguments: { workflowId: 'mcp-tools' } }),
    );
    expect(runs).toEqual((await call('GET', '/v1/workflows/mcp-tools/runs', { headers })).json);
    expect(runs.runs).toMatchObject([{ runId: ran.runId, status: 'success', trigger: 'api' }]);
    const reader = await connect({ authorization: `Bearer ${await scopedToken(['workflows:read'])}` });
    const refused = await reader.callTool({ name: 'run_workflow', arguments: { workflowId: 'mcp-tools' } });
    expect(problemOf(refused)).toMatchObject({ code: 'insufficient_scope', status: 403 });
  });

  it('get_usage answers the snapshot of GET /v1/usage without its wrapper', async () => {
    const route = await call('GET', '/v1/usage?granularity=day', { headers: { 'x-api-key': tenant.apiKey } });
    const usage = route.json.usage as Record<string, unknown>;
    const snapshot = structured(
      await client.callTool({ name: 'get_usage', arguments: { granularity: 'day' } }),
    );
    expect(snapshot).not.toHaveProperty('success');
    expect(Object.keys(snapshot).sort()).toEqual(Object.keys(usage).sort());
    for (const name of ['window', 'plan', 'subscription', 'storageBytes'])
      expect(snapshot[name]).toEqual(usage[name]);
  });

  it('counts each HTTP request to the server as one api_requests', async () => {
    const meter = async () => {
      const res = await call('GET', '/v1/usage', { headers: { 'x-api-key': other.apiKey } });
      return ((res.json.usage as { meters: Record<string, number> }).meters.api_requests ?? 0) as number;
    };
    const before = await meter();
    // initialize, notifications/initialized, tools/list, tools/call: four HTTP requests.
    const c = await connect({ 'x-api-key': other.apiKey });
    await c.listTools();
    await c.callTool({ name: 'list_dynadata_types', arguments: {} });
    expect(await meter()).toBe(before + 1 + 4);
  });

  it('lists, creates, reads, updates and deletes Dynadata items through the same domain code', async () => {
    const types = await call('GET', '/v1/dynadata/types', { headers: { 'x-api-key': tenant.apiKey } });
    expect(structured(await client.callTool({ name: 'list_dynadata_types', arguments: {} }))).toEqual(
      types.json,
    );

    const created = structured(
      await client.callTool({
        name: 'create_dynadata_item',
        arguments: { type: 'contacts', item: { name: 'Ada Lovelace' } },
      }),
    );
    expect(created).toMatchObject({ name: 'Ada Lovelace', _version: 1 });
    const id = created._id as string;
    const route = await call('GET', `/v1/dynadata/type/contacts/item/${id}`, {
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(
      structured(await client.callTool({ name: 'get_dynadata_item', arguments: { type: 'contacts', id } })),
    ).toEqual(route.json);
    const updated = structured(
      await client.callTool({
        name: 'update_dynadata_item',
        arguments: { type: 'contacts', item: { _id: id, _version: 1, name: 'Ada King' } },
      }),
    );
    expect(updated).toMatchObject({ _id: id, name: 'Ada King', _version: 2 });
    const stale = problemOf(
      await client.callTool({
        name: 'update_dynadata_item',
        arguments: { type: 'contacts', item: { _id: id, _version: 1, name: 'Ada' } },
      }),
    );
    const staleRoute = await call('POST', '/v1/dynadata/type/contacts/update', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { _id: id, _version: 1, name: 'Ada' },
    });
    expect({ code: stale.code, detail: stale.detail }).toEqual({
      code: staleRoute.json.code,
      detail: staleRoute.json.detail,
    });
    const page = structured(
      await client.callTool({ name: 'list_dynadata_items', arguments: { type: 'contacts', limit: 10 } }),
    );
    expect((page.items as { _id: string }[]).map((i) => i._id)).toContain(id);
    expect(
      structured(
        await client.callTool({ name: 'delete_dynadata_item', arguments: { type: 'contacts', id } }),
      ),
    ).toEqual({ deleted: true, _id: id });
    const gone = problemOf(
      await client.callTool({ name: 'get_dynadata_item', arguments: { type: 'contacts', id } }),
    );
    expect(gone.code).toBe('not_found');
  });

  it('refuses a tool whose scope a JWT lacks with a tool error naming the scope', async () => {
    const c = await connect({ 'x-jwt-token': await scopedToken(['usage:read']) });
    expect(structured(await c.callTool({ name: 'get_usage', arguments: {} }))).toHaveProperty('plan');
    const cases: [string, Record<string, unknown>, Scope][] = [
      ['get_transcode_job', { id: 'tc_missing' }, 'transcodes:read'],
      ['get_transcription_job', { id: 'tr_missing' }, 'transcriptions:read'],
      ['get_speech_job', { id: 'sj_missing' }, 'speech:read'],
      ['list_dynadata_types', {}, 'dynadata:read'],
      ['create_dynadata_item', { type: 'contacts', item: { name: 'x' } }, 'dynadata:write'],
    ];
    for (const [name, args, scope] of cases) {
      const problem = problemOf(await c.callTool({ name, arguments: args }));
      expect(problem).toMatchObject({ code: 'insufficient_scope', status: 403, requiredScope: scope });
      expect(problem.detail).toContain(scope);
    }
    // The same refusal as the route's, word for word.
    const route = await call('GET', '/v1/dynadata/types', {
      headers: { 'x-jwt-token': await scopedToken(['usage:read']) },
    });
    const tool = problemOf(await c.callTool({ name: 'list_dynadata_types', arguments: {} }));
    expect(tool.detail).toBe(route.json.detail);
  });

  it('refuses log_entries writes with log_entry_writes_not_allowed, whatever the scopes', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['create_dynadata_item', { type: 'log_entries', item: { note: 'x' } }],
      ['update_dynadata_item', { type: 'log_entries', item: { _id: 'x' } }],
      ['delete_dynadata_item', { type: 'log_entries', id: 'x' }],
    ];
    const noScopes = await connect({ 'x-jwt-token': await scopedToken(['usage:read']) });
    const route = await call('POST', '/v1/dynadata/type/log_entries/create', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { note: 'x' },
    });
    expectProblem(route, 403, 'log_entry_writes_not_allowed');
    for (const c of [client, noScopes]) {
      for (const [name, args] of calls) {
        const problem = problemOf(await c.callTool({ name, arguments: args }));
        expect(problem).toMatchObject({
          code: 'log_entry_writes_not_allowed',
          status: 403,
          detail: route.json.detail,
        });
      }
    }
  });

  it("answers another tenant's job id exactly like a missing one", async () => {
    const foreign = await seedTranscodeJob(other.companyId, 'pending');
    const missing = problemOf(
      await client.callTool({ name: 'get_transcode_job', arguments: { id: 'tc_nonexistent01' } }),
    );
    const theirs = problemOf(
      await client.callTool({ name: 'get_transcode_job', arguments: { id: foreign.jobId } }),
    );
    expect(theirs.code).toBe('not_found');
    expect({ ...theirs, requestId: undefined }).toEqual({ ...missing, requestId: undefined });
    const route = await call('GET', `/v1/transcodes/${foreign.jobId}`, {
      headers: { 'x-api-key': tenant.apiKey },
    });
    expectProblem(route, 404, 'not_found');
    expect(theirs.detail).toBe(route.json.detail);
  });

  it('takes an idempotencyKey on the tools that change data: a retry creates nothing twice', async () => {
    const t = await createTenant();
    const c = await connect({ 'x-api-key': t.apiKey });
    const key = `mcp-${Date.now()}`;
    const create = (name: string) =>
      c.callTool({
        name: 'create_dynadata_item',
        arguments: { type: 'contacts', item: { name }, idempotencyKey: key },
      });
    const firstResult = (await create('Grace Hopper')) as { _meta?: Record<string, unknown> };
    const againResult = (await create('Grace Hopper')) as { _meta?: Record<string, unknown> };
    const first = structured(firstResult);
    expect(structured(againResult)).toEqual(first);
    // The replay says so, as `Idempotent-Replayed: true` does over HTTP; the first call does not.
    expect(firstResult._meta?.idempotentReplayed).toBeUndefined();
    expect(againResult._meta?.idempotentReplayed).toBe(true);
    const listed = await call('POST', '/v1/dynadata/type/contacts/list', {
      headers: { 'x-api-key': t.apiKey },
      body: { limit: 10 },
    });
    expect((listed.json.items as { _id: string }[]).map((i) => i._id)).toEqual([first._id]);
    expect(problemOf(await create('Someone else'))).toMatchObject({ code: 'idempotency_key_reused' });
    // Reads take no key; a malformed key is refused by the tool's input schema.
    const { tools } = await c.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName.create_dynadata_item?.inputSchema.properties ?? {})).toContain(
      'idempotencyKey',
    );
    expect(Object.keys(byName.get_dynadata_item?.inputSchema.properties ?? {})).not.toContain(
      'idempotencyKey',
    );
    const badKey = (await c.callTool({
      name: 'create_dynadata_item',
      arguments: { type: 'contacts', item: { name: 'x' }, idempotencyKey: 'has space' },
    })) as { isError?: boolean };
    expect(badKey.isError).toBe(true);
  });

  it('lists only the tools the credential scopes allow, and still answers a call to another with its scope', async () => {
    for (const scope of [...new Set(Object.values(SCOPE_OF_TOOL)), 'company:read' as Scope]) {
      const c = await connect({ 'x-jwt-token': await scopedToken([scope]) });
      const listed = (await c.listTools()).tools.map((t) => t.name);
      expect(listed, scope).toEqual(TOOL_NAMES.filter((name) => SCOPE_OF_TOOL[name] === scope));
    }
    const onlyUsage = await connect({ 'x-jwt-token': await scopedToken(['usage:read']) });
    expect(
      problemOf(await onlyUsage.callTool({ name: 'get_transcode_job', arguments: { id: 'x' } })),
    ).toMatchObject({
      code: 'insufficient_scope',
      requiredScope: 'transcodes:read',
    });
  });

  it('takes Authorization: Bearer with an API key or a JWT, after the three headers', async () => {
    const byKey = await connect({ authorization: `Bearer ${tenant.apiKey}` });
    expect((await byKey.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    const byJwt = await connect({ authorization: `Bearer ${await scopedToken(['dynadata:read'])}` });
    expect(structured(await byJwt.callTool({ name: 'list_dynadata_types', arguments: {} }))).toHaveProperty(
      'types',
    );
    // An invalid winner is refused, never a fall-through to the bearer token.
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const accept = 'application/json, text/event-stream';
    expectProblem(
      await call('POST', '/v1/mcp', {
        headers: { accept, 'x-api-key': 'sk-nope', authorization: `Bearer ${tenant.apiKey}` },
        body: ping,
      }),
      401,
      'unauthorized',
    );
    expectProblem(
      await call('POST', '/v1/mcp', {
        headers: { accept, authorization: `Basic ${tenant.apiKey}` },
        body: ping,
      }),
      401,
      'unauthorized',
    );
    // Other routes take only the three headers.
    expectProblem(
      await call('GET', '/v1/self', { headers: { authorization: `Bearer ${tenant.apiKey}` } }),
      401,
      'unauthorized',
    );
  });

  it('refuses an invalid credential and a token of another kind with HTTP 401', async () => {
    const badKey = new Client({ name: 'integration-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(MCP_URL, {
      requestInit: { headers: { 'x-api-key': `sk-${'A'.repeat(43)}` } },
    });
    await expect(badKey.connect(transport)).rejects.toThrow(/401/);
    const now = Math.floor(Date.now() / 1000);
    const oauth = await signJwt(
      { companyId: tenant.companyId, kind: 'oauth', exp: now + 300, scopes: ['usage:read'] },
      key,
    );
    const credentials: Record<string, string>[] = [
      { 'x-jwt-token': oauth },
      { authorization: `Bearer ${oauth}` },
    ];
    for (const headers of credentials) {
      const c = new Client({ name: 'integration-test', version: '1.0.0' });
      await expect(
        c.connect(new StreamableHTTPClientTransport(MCP_URL, { requestInit: { headers } })),
      ).rejects.toThrow(/401/);
      const res = await call('POST', '/v1/mcp', { headers, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
      expectProblem(res, 401, 'unauthorized');
    }
  });

  it('answers GET and DELETE with 405 and Allow: POST, and a malformed message with 400', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await call(method, '/v1/mcp', { headers: { 'x-api-key': tenant.apiKey } });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('POST');
    }
    expectProblem(
      await call('POST', '/v1/mcp', {
        headers: { 'x-api-key': tenant.apiKey },
        body: { id: 1, method: 'ping' },
      }),
      400,
      'validation_failed',
    );
    const notification = await call('POST', '/v1/mcp', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    expect(notification.status).toBe(202);
    const unknown = await call('POST', '/v1/mcp', {
      headers: { 'x-api-key': tenant.apiKey },
      body: { jsonrpc: '2.0', id: 7, method: 'resources/list' },
    });
    expect(unknown.status).toBe(200);
    expect(unknown.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
  });
});
