import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStored } from './stored-text';
import { call, createTenant, expectProblem } from './support';
import { type RunBody, waitForRun } from './workflow-support';

/**
 * Workflow secrets (`/v1/workflows/secrets`): write-only values that HTTP steps use as `{{ secrets.NAME }}`,
 * encrypted at rest and redacted from everything a run records.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
const as = (t: Tenant, more: Record<string, string> = {}) => ({ 'x-api-key': t.apiKey, ...more });
const putSecret = (t: Tenant, name: string, body: unknown, more: Record<string, string> = {}) =>
  call('PUT', `/v1/workflows/secrets/${name}`, { headers: as(t, more), body });
const putWorkflow = (t: Tenant, id: string, body: unknown) =>
  call('PUT', `/v1/workflows/${id}`, { headers: as(t), body });

const VALUE = 'crm_live_7a1F9c2Qx0ZmT4vB8nL3';

/** A loopback target that echoes the request it received, headers included, padded past 4 KB. */
const received: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const request = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
    received.push(request);
    res
      .writeHead(200, { 'content-type': 'application/json', 'x-echo': String(req.headers.authorization) })
      .end(JSON.stringify({ ...request, padding: 'x'.repeat(5000) }));
  });
});
let target = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const calling = (id: string) => ({
  id,
  name: 'Call the CRM',
  steps: [
    {
      id: 'call',
      action: 'actions/http/request',
      with: {
        method: 'POST',
        url: `${target}/contacts?key={{ secrets.CRM_TOKEN }}`,
        headers: { authorization: 'Bearer {{ secrets.CRM_TOKEN }}' },
        body: { token: '{{ secrets.CRM_TOKEN }}', note: 'sent with {{ secrets.CRM_TOKEN }}' },
      },
    },
  ],
  return: { echoed: '{{ steps.call.output.body.headers.authorization }}' },
});

describe('workflow secrets', () => {
  it('stores a secret write-only: reads answer its name, never its value', async () => {
    const t = await createTenant();
    const created = await putSecret(t, 'CRM_TOKEN', { value: VALUE, description: 'CRM bearer token' });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      secret: expect.objectContaining({ name: 'CRM_TOKEN', description: 'CRM bearer token', version: 1 }),
    });
    const etag = created.headers.get('etag') ?? '';
    const again = await putSecret(t, 'CRM_TOKEN', { value: `${VALUE}-2` }, { 'if-match': etag });
    expect(again.status).toBe(200);
    expect(again.json.secret).toMatchObject({ version: 2, description: 'CRM bearer token' });
    expectProblem(
      await putSecret(t, 'CRM_TOKEN', { value: VALUE }, { 'if-match': etag }),
      412,
      'precondition_failed',
    );
    const read = await call('GET', '/v1/workflows/secrets/CRM_TOKEN', { headers: as(t) });
    const listed = await call('GET', '/v1/workflows/secrets', { headers: as(t) });
    expect(listed.json.secrets).toEqual([read.json.secret]);
    for (const answer of [created, again, read, listed])
      expect(JSON.stringify(answer.json)).not.toContain(VALUE);
    // A read-only key sees the name; it cannot store or delete.
    const reader = await createTenant({ scopes: ['workflows:read'] });
    expect((await call('GET', '/v1/workflows/secrets', { headers: as(reader) })).json.secrets).toEqual([]);
    expectProblem(await putSecret(reader, 'CRM_TOKEN', { value: VALUE }), 403, 'insufficient_scope');
    // Another company's secret does not exist for it.
    const other = await createTenant();
    expectProblem(
      await call('GET', '/v1/workflows/secrets/CRM_TOKEN', { headers: as(other) }),
      404,
      'not_found',
    );
    expectProblem(
      await call('DELETE', '/v1/workflows/secrets/CRM_TOKEN', { headers: as(other) }),
      404,
      'not_found',
    );
    // Bad names and values.
    expectProblem(await putSecret(t, 'crm_token', { value: VALUE }), 400, 'validation_failed');
    expectProblem(await putSecret(t, 'SHORT', { value: 'short' }), 400, 'validation_failed');
    const deleted = await call('DELETE', '/v1/workflows/secrets/CRM_TOKEN', { headers: as(t) });
    expect(deleted.json).toEqual({ deleted: true, name: 'CRM_TOKEN' });
    expectProblem(await call('GET', '/v1/workflows/secrets/CRM_TOKEN', { headers: as(t) }), 404, 'not_found');
  });

  it('holds at most 100 secrets a company', async () => {
    const t = await createTenant();
    for (let i = 0; i < 100; i += 20) {
      const batch = Array.from({ length: 20 }, (_, j) =>
        putSecret(t, `S${i + j}`, { value: `${VALUE}${i + j}` }),
      );
      for (const answer of await Promise.all(batch)) expect(answer.status).toBe(201);
    }
    expectProblem(await putSecret(t, 'ONE_MORE', { value: VALUE }), 403, 'workflow_secret_limit_reached');
    // A new value of an existing one is not a new secret.
    expect((await putSecret(t, 'S1', { value: `${VALUE}-new` })).status).toBe(200);
  });

  it('refuses a definition that uses a secret outside the url, headers and body of an HTTP step', async () => {
    const t = await createTenant();
    const misplaced = await putWorkflow(t, 'leaky', {
      name: 'Leaky',
      steps: [
        {
          id: 'say',
          action: 'actions/speech/spoken-text',
          with: { markdown: 'Key: {{ secrets.CRM_TOKEN }}' },
        },
        {
          id: 'call',
          action: 'actions/http/request',
          with: { url: `${target}/`, timeoutMs: '{{ secrets.T }}' },
        },
      ],
      return: { token: '{{ secrets.CRM_TOKEN }}' },
    });
    expectProblem(misplaced, 400, 'validation_failed');
    expect((misplaced.json.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/body/return/token',
      '/body/steps/0/with/markdown',
      '/body/steps/1/with/timeoutMs',
    ]);
    const badName = await putWorkflow(t, 'bad', {
      name: 'Bad',
      steps: [{ id: 'call', action: 'actions/http/request', with: { url: `${target}/{{ secrets.lower }}` } }],
    });
    expectProblem(badName, 400, 'validation_failed');
  });

  it('sends the value in the request, and no stored record, log or answer holds it (sync and async)', async () => {
    const t = await createTenant();
    expect((await putSecret(t, 'CRM_TOKEN', { value: VALUE })).status).toBe(201);
    expect((await putWorkflow(t, 'crm', calling('crm'))).status).toBe(201);
    received.length = 0;
    const sync = await call('POST', '/v1/workflows/crm/run', {
      headers: as(t, { 'idempotency-key': 'crm-run-1' }),
      body: { input: {}, includeStepOutputs: true },
    });
    expect(sync.status).toBe(200);
    expect(sync.json.ok).toBe(true);
    // The target got the real value in the URL, the header and the body.
    expect(received).toHaveLength(1);
    expect(received[0]?.url).toBe(`/contacts?key=${VALUE}`);
    expect(received[0]?.headers.authorization).toBe(`Bearer ${VALUE}`);
    expect(JSON.parse(received[0]?.body ?? '{}')).toEqual({ token: VALUE, note: `sent with ${VALUE}` });
    // Even the caller of the sync run never sees it: the echo is redacted in the answer and the result.
    expect(JSON.stringify(sync.json)).not.toContain(VALUE);
    expect(sync.json.result).toEqual({ echoed: 'Bearer [redacted]' });
    const replay = await call('POST', '/v1/workflows/crm/run', {
      headers: as(t, { 'idempotency-key': 'crm-run-1' }),
      body: { input: {}, includeStepOutputs: true },
    });
    expect(replay.status).toBe(200);
    expect(JSON.stringify(replay.json)).not.toContain(VALUE);
    const started = await call('POST', '/v1/workflows/crm/run', {
      headers: as(t),
      body: { input: {}, mode: 'async', includeStepOutputs: true },
    });
    expect(started.status).toBe(202);
    const async: RunBody = await waitForRun(t.apiKey, 'crm', String(started.json.runId));
    expect(async.ok).toBe(true);
    expect(received).toHaveLength(2);
    expect(received[1]?.headers.authorization).toBe(`Bearer ${VALUE}`);
    for (const runId of [sync.json.runId, started.json.runId]) {
      const read = await call('GET', `/v1/workflows/crm/runs/${runId}?includeStepOutputs=true`, {
        headers: as(t),
      });
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.json)).not.toContain(VALUE);
    }
    // Definitions, runs, step outputs (one over 4 KB, an object), events, idempotency records, log entries,
    // the secret's own record (encrypted) and the stack's logs: none holds the value.
    const leaks = (await everythingStored(t.companyId)).filter((text) => text.includes(VALUE));
    expect(leaks).toEqual([]);
  });

  it('fails the step that uses a secret the company does not hold', async () => {
    const t = await createTenant();
    expect((await putWorkflow(t, 'crm', calling('crm'))).status).toBe(201);
    const run = await call('POST', '/v1/workflows/crm/run', { headers: as(t), body: { input: {} } });
    expect(run.json.ok).toBe(false);
    expect(run.json.failedSteps).toEqual([
      expect.objectContaining({ step: 'call', code: 'secret_not_found' }),
    ]);
  });
});
