import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryFile, upload } from './storage-uploads';
import { apiUrl, call, createContact, createTenant } from './support';
import { storeSource } from './transcode-support';
import { runWorkflow, savedWorkflow } from './workflow-support';

/**
 * The operations offered to agents beyond reads (ARCHITECTURE §3): an agent uploads and downloads a file,
 * starts and lists jobs, sends a message, reads events and a workflow, each through the route's own code and
 * input; and a workflow reads a job and a download URL through the same operations.
 */
const open: Client[] = [];
const connect = async (headers: Record<string, string>) => {
  const client = new Client({ name: 'integration-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${apiUrl}/v1/mcp`), { requestInit: { headers } }),
  );
  open.push(client);
  return client;
};
const structured = (result: unknown) => {
  const r = result as CallToolResult;
  if (r.isError) throw new Error(`tool error: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Record<string, unknown>;
};
const problemOf = (result: unknown) => {
  const r = result as CallToolResult;
  expect(r.isError).toBe(true);
  const first = r.content[0];
  if (first?.type !== 'text') throw new Error('a tool error carries its problem as text');
  return JSON.parse(first.text) as { code: string; errors?: { pointer: string }[] };
};

let tenant: Awaited<ReturnType<typeof createTenant>>;
let agent: Client;

beforeAll(async () => {
  tenant = await createTenant({ plan: 'starter' });
  agent = await connect({ 'x-api-key': tenant.apiKey });
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
});

describe('operations at the agent door', () => {
  it('uploads a file in the three steps and downloads it again', async () => {
    const bytes = Buffer.from('hello from an agent\n');
    const reserved = structured(
      await agent.callTool({
        name: 'create_upload_url',
        arguments: { fileName: 'note.txt', contentType: 'text/plain', size: bytes.length },
      }),
    );
    const put = await fetch(String(reserved.uploadUrl), {
      method: String(reserved.method ?? 'PUT'),
      headers: reserved.headers as Record<string, string>,
      body: bytes,
    });
    expect(put.status).toBe(200);
    const stored = structured(
      await agent.callTool({
        name: 'complete_upload',
        arguments: { bucket: reserved.bucket, fullPath: reserved.fullPath },
      }),
    );
    expect(stored).toMatchObject({ fullPath: reserved.fullPath, size: bytes.length });
    const download = structured(
      await agent.callTool({ name: 'get_download_url', arguments: { fullPath: reserved.fullPath } }),
    );
    expect(Buffer.from(await (await fetch(String(download.url))).arrayBuffer())).toEqual(bytes);
  });

  it('lists the stored files and deletes one, as the storage routes do', async () => {
    const owner = await createTenant();
    const client = await connect({ 'x-api-key': owner.apiKey });
    const kept = await upload(owner, binaryFile(32));
    const gone = await upload(owner, binaryFile(64));
    const listed = structured(await client.callTool({ name: 'list_files', arguments: { limit: 10 } }));
    expect((listed.files as { fullPath: string }[]).map((f) => f.fullPath)).toEqual(
      [kept.fullPath, gone.fullPath].sort(),
    );
    expect(
      structured(await client.callTool({ name: 'delete_file', arguments: { fullPath: gone.fullPath } })),
    ).toEqual({ deleted: true, bucket: gone.bucket, fullPath: gone.fullPath });
    expect(
      problemOf(await client.callTool({ name: 'delete_file', arguments: { fullPath: gone.fullPath } })).code,
    ).toBe('not_found');
    // Another company's agent sees none of them.
    expect(
      problemOf(await agent.callTool({ name: 'delete_file', arguments: { fullPath: kept.fullPath } })).code,
    ).toBe('not_found');
    const { id: workflowId } = await savedWorkflow(owner.companyId, {
      id: 'files',
      name: 'Files',
      steps: [{ id: 'list', action: 'actions/storage/list', with: { limit: 5 } }],
      return: { files: '{{ steps.list.output.files }}' },
    });
    const run = await runWorkflow(owner.apiKey, workflowId);
    expect((run.json.result as { files: { fullPath: string }[] }).files.map((f) => f.fullPath)).toEqual([
      kept.fullPath,
    ]);
  });

  it('starts a transcode job once per idempotencyKey, lists and reads it as the routes do', async () => {
    const source = await storeSource(tenant.companyId, 'tone');
    const start = () =>
      agent.callTool({
        name: 'create_transcode_job',
        arguments: { fullPath: source.fullPath, preset: 'ogg_opus', idempotencyKey: `tc-${source.fullPath}` },
      });
    const job = structured(await start());
    expect(job).toMatchObject({ status: 'pending', source: { fullPath: source.fullPath } });
    expect(structured(await start()).id).toBe(job.id);
    const page = structured(await agent.callTool({ name: 'list_transcode_jobs', arguments: { limit: 5 } }));
    expect((page.jobs as { id: string }[]).map((j) => j.id)).toEqual([job.id]);
    const viaRoute = await call('GET', '/v1/transcodes', { headers: { 'x-api-key': tenant.apiKey } });
    expect((viaRoute.json.jobs as { id: string }[]).map((j) => j.id)).toEqual([job.id]);
    // The route's own bounds apply: a page of 0 is refused at the tool's input.
    expect((await agent.callTool({ name: 'list_transcode_jobs', arguments: { limit: 0 } })).isError).toBe(
      true,
    );
  });

  it('sends a message to a contact, and points a refusal into the tool input', async () => {
    const contactId = await createContact({ 'x-api-key': tenant.apiKey });
    const { tools } = await agent.listTools();
    const send = tools.find((t) => t.name === 'send_message');
    expect(Object.keys(send?.inputSchema.properties ?? {}).sort()).toEqual([
      'body',
      'contactId',
      'idempotencyKey',
      'sendAt',
      'type',
    ]);
    const sent = structured(
      await agent.callTool({
        name: 'send_message',
        arguments: { contactId, type: 'text', body: { text: 'Your order has shipped.' } },
      }),
    );
    expect(sent).toMatchObject({ status: 'queued' });
    expect(typeof sent.messageId).toBe('string');
    const refused = problemOf(
      await agent.callTool({
        name: 'send_message',
        arguments: { contactId, type: 'text', body: { file: { fullPath: 'x' } } },
      }),
    );
    expect(refused.code).toBe('validation_failed');
    const missing = problemOf(
      await agent.callTool({
        name: 'send_message',
        arguments: { contactId: 'no-such-contact', type: 'text', body: { text: 'hi' } },
      }),
    );
    expect(missing.code).toBe('not_found');
    const past = problemOf(
      await agent.callTool({
        name: 'send_message',
        arguments: { contactId, type: 'text', body: { text: 'hi' }, sendAt: '2020-01-01T00:00:00Z' },
      }),
    );
    expect(past.code).toBe('send_at_out_of_range');
  });

  it("schedules a message, reads the contact's thread and cancels it, as the routes do", async () => {
    const contactId = await createContact({ 'x-api-key': tenant.apiKey });
    const later = structured(
      await agent.callTool({
        name: 'send_message',
        arguments: {
          contactId,
          type: 'text',
          body: { text: 'Tomorrow' },
          sendAt: new Date(Date.now() + 86_400_000).toISOString(),
        },
      }),
    );
    expect(later).toMatchObject({ status: 'scheduled' });
    const thread = structured(
      await agent.callTool({ name: 'list_contact_messages', arguments: { contactId } }),
    );
    expect((thread.messages as { _id: string }[]).map((m) => m._id)).toEqual([later.messageId]);
    const canceled = structured(
      await agent.callTool({ name: 'cancel_message', arguments: { id: later.messageId } }),
    );
    expect(canceled.message).toMatchObject({ _id: later.messageId, status: 'canceled' });
    const other = await createTenant({ plan: 'starter' });
    const stranger = await connect({ 'x-api-key': other.apiKey });
    expect(
      problemOf(await stranger.callTool({ name: 'cancel_message', arguments: { id: later.messageId } })).code,
    ).toBe('not_found');
  });

  it('reads the events and one event as GET /v1/events does', async () => {
    const page = structured(await agent.callTool({ name: 'list_events', arguments: { limit: 10 } }));
    const viaRoute = await call('GET', '/v1/events?limit=10', { headers: { 'x-api-key': tenant.apiKey } });
    expect(page).toEqual(viaRoute.json);
    const first = (page.events as { id: string }[])[0];
    if (first) {
      const one = structured(await agent.callTool({ name: 'get_event', arguments: { id: first.id } }));
      expect(one.id).toBe(first.id);
    }
  });

  it('reads a workflow definition and its runs with a numeric limit', async () => {
    const { id: workflowId } = await savedWorkflow(tenant.companyId, {
      id: 'agent-reads',
      name: 'Agent reads',
      steps: [{ id: 'say', action: 'actions/speech/spoken-text', with: { markdown: '**Hi**' } }],
    });
    const workflow = structured(await agent.callTool({ name: 'get_workflow', arguments: { workflowId } }));
    expect(workflow).toMatchObject({ id: workflowId });
    expect((await runWorkflow(tenant.apiKey, workflowId)).status).toBe(200);
    const runs = structured(
      await agent.callTool({ name: 'list_workflow_runs', arguments: { workflowId, limit: 1 } }),
    );
    expect(runs.runs as unknown[]).toHaveLength(1);
  });
});

describe('operations at the workflow door', () => {
  it('reads a job and a download URL through the operations’ own actions', async () => {
    const source = await storeSource(tenant.companyId, 'tone');
    const { id: workflowId } = await savedWorkflow(tenant.companyId, {
      id: 'reads-through-operations',
      name: 'Reads through operations',
      steps: [
        {
          id: 'start',
          action: 'actions/media/transcode',
          with: { fullPath: source.fullPath, preset: 'ogg_opus' },
        },
        {
          id: 'read',
          action: 'actions/media/transcode/get',
          with: { id: '{{ steps.start.output.job.id }}' },
        },
        { id: 'url', action: 'actions/storage/download-url', with: { fullPath: source.fullPath } },
        {
          id: 'missing',
          action: 'actions/media/transcode/get',
          with: { id: 'tc_missing' },
          allowFailure: true,
        },
      ],
    });
    const run = await runWorkflow(tenant.apiKey, workflowId, { includeStepOutputs: true });
    expect(run.json.failedSteps).toEqual([
      expect.objectContaining({ step: 'missing', code: 'not_found', handled: true }),
    ]);
    const outputs = Object.fromEntries(
      (run.json.stepOutputs as { step: string; output: { job?: { id: string }; url?: string } }[]).map(
        (o) => [o.step, o.output],
      ),
    );
    expect(outputs.read?.job?.id).toBe(outputs.start?.job?.id);
    expect(outputs.url?.url).toMatch(/^http/);
  });

  it('keys a step’s write by its run and step: the same step run again creates nothing twice', async () => {
    const { findAction } = await import('../../functions/shared/domain/workflows/actions');
    const { registerWorkflowActions } = await import('../../functions/shared/operations/workflow-actions');
    registerWorkflowActions();
    const create = findAction('actions/dynadata/create');
    const t = await createTenant();
    const ctx = (stepId: string) => ({
      companyId: t.companyId,
      runId: `run-${Date.now()}`,
      stepId,
      callerScopes: ['dynadata:write'],
      caller: undefined,
      sync: false,
      hop: 0,
      now: new Date(),
      limits: () => Promise.reject(new Error('not read by this action')),
    });
    const input = create?.input.parse({ type: 'contacts', item: { name: 'Grace' } });
    const once = ctx('add');
    const first = (await create?.run(input, once)) as { _id: string };
    const again = (await create?.run(input, { ...once, now: new Date() })) as { _id: string };
    expect(again._id).toBe(first._id);
    const other = (await create?.run(input, { ...once, stepId: 'add-again' })) as { _id: string };
    expect(other._id).not.toBe(first._id);
    const listed = await call('POST', '/v1/dynadata/type/contacts/list', {
      headers: { 'x-api-key': t.apiKey },
      body: { limit: 10 },
    });
    expect((listed.json.items as unknown[]).length).toBe(2);
  });
});
