import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StackDescription } from '../../functions/local/stack';
import { readStackFile } from '../../functions/local/stack-file';
import { apiUrl, call, createTenant, expectProblem } from './support';
import { type RunBody, runWorkflow, savedWorkflow, startTarget } from './workflow-support';

/**
 * A tenant's outbound requests (webhook endpoints, workflow HTTP steps) never reach the local stack's own
 * services, although the stack under test allows loopback receivers; and a workflow that calls this API to
 * start itself is stopped by the hop limit.
 */
let stack: StackDescription;
let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  const described = readStackFile(inject('stack').dataDir);
  if (!described) throw new Error('no stack.json for the stack under test');
  stack = described;
  target = await startTarget();
});
afterAll(() => target.close());

/** Every endpoint the stack description names: the control plane a tenant must not reach. */
const ownEndpoints = () => ({
  dynamodb: stack.dynamodbEndpoint,
  s3: stack.s3Endpoint,
  stepFunctions: stack.stepFunctionsEndpoint,
  queues: stack.queueEndpoint,
  scheduler: String(stack.schedulerEndpoint),
  gateway: stack.apiUrl,
});

const portOf = (endpoint: string) => Number(new URL(endpoint).port);

/**
 * A loopback relay to the gateway (whose own port is refused to outbound requests): forwards method, path,
 * body and headers, `x-workflow-hop` included, and records the hop of every request it relays.
 */
const startRelay = async () => {
  const hops: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      hops.push(req.headers['x-workflow-hop'] as string | undefined);
      const headers = Object.fromEntries(
        Object.entries(req.headers as IncomingHttpHeaders).flatMap(([name, value]) =>
          ['host', 'connection', 'content-length'].includes(name) || value === undefined
            ? []
            : [[name, Array.isArray(value) ? value.join(', ') : value]],
        ),
      );
      const body = Buffer.concat(chunks);
      const answer = await fetch(`${apiUrl}${req.url}`, {
        method: req.method,
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      res
        .writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' })
        .end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hops,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

describe("the local stack's own services", () => {
  it('are listed in the stack description as denied loopback ports, loopback being allowed', () => {
    expect(stack.outbound.allowLoopback).toBe(true);
    for (const endpoint of Object.values(ownEndpoints()))
      expect(stack.outbound.deniedLoopbackPorts).toContain(portOf(endpoint));
    expect(stack.outbound.deniedLoopbackPorts).not.toContain(portOf(target.url));
    // And s3rver's own port, behind the signature-checking front (not an endpoint anyone is given).
    expect(new Set(stack.outbound.deniedLoopbackPorts).size).toBe(
      new Set(Object.values(ownEndpoints())).size + 1,
    );
  });

  it('are refused as webhook endpoints with 400 validation_failed at /body/url', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    for (const [name, endpoint] of Object.entries(ownEndpoints())) {
      for (const url of [`${endpoint}/`, `http://localhost:${portOf(endpoint)}/hook`]) {
        const res = await call('POST', '/v1/webhooks', { headers, body: { url, events: ['*'] } });
        expectProblem(res, 400, 'validation_failed');
        expect(res.json.errors, `${name} ${url}`).toEqual([
          { pointer: '/body/url', message: expect.stringContaining("platform's own services") },
        ]);
      }
    }
    const receiver = await call('POST', '/v1/webhooks', {
      headers,
      body: { url: `${target.url}/hook`, events: ['*'] },
    });
    expect(receiver.status, JSON.stringify(receiver.json)).toBe(201);
  });

  it('are refused to workflow HTTP steps (a DynamoDB Scan, a bucket listing), while a loopback receiver answers', async () => {
    const t = await createTenant({ plan: 'starter' });
    const steps = [
      {
        id: 'scan',
        action: 'actions/http/request',
        with: {
          method: 'POST',
          url: `${stack.dynamodbEndpoint}/`,
          headers: {
            'x-amz-target': 'DynamoDB_20120810.Scan',
            'content-type': 'application/x-amz-json-1.0',
          },
          body: JSON.stringify({ TableName: stack.tableName }),
        },
        allowFailure: true,
      },
      {
        id: 'bucket',
        action: 'actions/http/request',
        with: { method: 'GET', url: `http://localhost:${portOf(stack.s3Endpoint)}/${stack.bucketName}` },
        allowFailure: true,
      },
      {
        id: 'engine',
        action: 'actions/http/request',
        with: { method: 'POST', url: `${stack.stepFunctionsEndpoint}/` },
        allowFailure: true,
      },
      {
        id: 'forged',
        action: 'actions/http/request',
        // Named literally, the header is refused on save; through a reference, the step fails.
        with: { method: 'GET', url: `${target.url}/json`, headers: '{{ input.forged }}' },
        allowFailure: true,
      },
      { id: 'receiver', action: 'actions/http/request', with: { method: 'GET', url: `${target.url}/json` } },
    ];
    await savedWorkflow(t.companyId, { id: 'own-ports', name: 'Own ports', steps });
    const res = await runWorkflow(t.apiKey, 'own-ports', {
      includeStepOutputs: true,
      input: { forged: { 'X-Workflow-Hop': '0' } },
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const run = res.json as unknown as RunBody;
    expect(run.failedSteps.map((f) => [f.step, f.code, f.handled])).toEqual([
      ['scan', 'http_target_refused', true],
      ['bucket', 'http_target_refused', true],
      ['engine', 'http_target_refused', true],
      ['forged', 'validation_failed', true],
    ]);
    expect(run.failedSteps[0]?.userMessage).toContain("platform's own services");
    expect(run.stepOutputs?.find((o) => o.step === 'receiver')?.output).toMatchObject({
      status: 200,
      body: { path: '/json', method: 'GET' },
    });
  });
});

describe('the workflow hop header', () => {
  it('accepts a request 3 hops deep and refuses one 4 deep with 400 hop_limit_exceeded', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    expect((await call('GET', '/v1/self', { headers: { ...headers, 'x-workflow-hop': '3' } })).status).toBe(
      200,
    );
    const refused = await call('GET', '/v1/self', { headers: { ...headers, 'x-workflow-hop': '4' } });
    expectProblem(refused, 400, 'hop_limit_exceeded');
    expect(refused.json.limit).toBe(3);
    const malformed = await call('GET', '/v1/self', { headers: { ...headers, 'x-workflow-hop': 'two' } });
    expectProblem(malformed, 400, 'validation_failed');
    expect(malformed.json.errors).toEqual([
      { pointer: '/headers/x-workflow-hop', message: expect.any(String) },
    ]);
  });

  it('stops a workflow that starts itself through a relay at the 4th hop', { timeout: 60_000 }, async () => {
    const relay = await startRelay();
    try {
      const t = await createTenant({ plan: 'starter' });
      await savedWorkflow(t.companyId, {
        id: 'again',
        name: 'Starts itself again',
        input: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
        steps: [
          {
            id: 'again',
            action: 'actions/http/request',
            with: {
              method: 'POST',
              url: `${relay.url}/v1/workflows/again/run`,
              headers: { 'x-api-key': '{{ input.key }}' },
              body: { mode: 'sync', input: { key: '{{ input.key }}' } },
            },
          },
        ],
        return: { answer: '{{ steps.again.output }}' },
      });
      const res = await runWorkflow(t.apiKey, 'again', { input: { key: t.apiKey } });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      // Runs at hops 0, 1, 2 and 3 each called the relay with one more; the call at hop 4 was refused.
      expect(relay.hops).toEqual(['1', '2', '3', '4']);
      type Answer = { status: number; body: { result?: { answer: Answer }; code?: string; limit?: number } };
      let answer = (res.json as unknown as RunBody).result?.answer as Answer;
      for (let depth = 1; depth <= 3; depth++) {
        expect(answer.status, `run at hop ${depth}`).toBe(200);
        answer = answer.body.result?.answer as Answer;
      }
      expect(answer).toMatchObject({ status: 400, body: { code: 'hop_limit_exceeded', limit: 3 } });
    } finally {
      await relay.close();
    }
  });
});
