import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ApiClientOptions, createApiClient } from '../../src/client.js';
import { RequestTimeoutError } from '../../src/retry.js';

/**
 * The request layer's transport defaults over real HTTP: a stub server on 127.0.0.1 (a random port, closed at
 * the end) that holds, refuses or answers each request as the test says, and records what it received. The
 * waits between attempts are recorded rather than slept (the `sleep` option); the timeouts are real.
 */
interface Received {
  method: string;
  path: string;
  userAgent: string | undefined;
  key: string | undefined;
}

type Handler = (request: IncomingMessage, response: ServerResponse, index: number) => void;

const received: Received[] = [];
let handler: Handler = (_request, response) => response.end();
const server = createServer((request, response) => {
  received.push({
    method: request.method ?? '',
    path: request.url ?? '',
    userAgent: request.headers['user-agent'],
    key: request.headers['idempotency-key'] as string | undefined,
  });
  request.resume();
  handler(request, response, received.length - 1);
});
let baseUrl = '';
let waits: number[] = [];

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  waits = [];
});

const client = (options: Partial<ApiClientOptions> = {}) =>
  createApiClient({
    baseUrl,
    credential: { apiKey: 'sk-test' },
    retry: {
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
    },
    ...options,
  });

const send = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
  response.end(JSON.stringify(body));
};

/** Never answers: the request stays open until the client gives up (or the server closes). */
const hold: Handler = () => {};

const createItem = (api: ReturnType<typeof client>) =>
  api.POST('/v1/dynadata/type/{type}/create', {
    params: { path: { type: 'contacts' } },
    body: { name: 'Ada' },
  });

describe('the request layer over HTTP', () => {
  it('gives up on an attempt after timeoutMs, retries a GET and throws a RequestTimeoutError at the end', async () => {
    handler = hold;
    const attempts: string[] = [];
    const started = Date.now();
    const error = await client({
      timeoutMs: 100,
      fetch: (request) => {
        attempts.push(`${request.method} ${new URL(request.url).pathname}`);
        return fetch(request);
      },
    })
      .GET('/v1/self')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ name: 'RequestTimeoutError', timeoutMs: 100, attempts: 3 });
    expect(String(error)).toContain(`GET ${baseUrl}/v1/self got no answer within 100 ms (attempt 3)`);
    expect(attempts).toEqual(Array(3).fill('GET /v1/self'));
    // On a busy machine an attempt may time out before its request reaches the server.
    expect(received.length).toBeLessThanOrEqual(3);
    expect(waits).toEqual([100, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('does not repeat a timed-out POST that carries no idempotency key', async () => {
    handler = hold;
    const error = await client({ timeoutMs: 100 })
      .POST('/v1/spoken-text', { body: { markdown: '# Hi' } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RequestTimeoutError', attempts: 1 });
    expect(received.length).toBeLessThanOrEqual(1);
    expect(waits).toEqual([]);
  });

  it("stops at the caller's AbortSignal, which is not a timeout, and answers slow requests without one", async () => {
    handler = hold;
    const error = await client({ timeoutMs: 10_000 })
      .GET('/v1/self', { signal: AbortSignal.timeout(50) })
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(waits).toEqual([]);

    handler = (_request, response) => setTimeout(() => send(response, 200, { company: {} }), 150);
    for (const timeoutMs of [0, Number.POSITIVE_INFINITY]) {
      expect((await client({ timeoutMs }).GET('/v1/self')).response.status).toBe(200);
    }
  });

  it('ends on time over a fetch that never settles and ignores the abort', async () => {
    const error = await client({
      timeoutMs: 50,
      retry: { maxAttempts: 1 },
      fetch: () => new Promise(() => {}),
    })
      .GET('/v1/self')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RequestTimeoutError', timeoutMs: 50, attempts: 1 });
  });

  it('retries a 409 idempotency_request_in_progress after its Retry-After, with the same key', async () => {
    handler = (_request, response, index) =>
      index === 0
        ? send(response, 409, { code: 'idempotency_request_in_progress' }, { 'retry-after': '1' })
        : send(response, 201, { _id: 'it_1', _version: 1 }, { 'idempotent-replayed': 'true' });
    const { data, response } = await createItem(client());
    expect(response.status).toBe(201);
    expect(data?._id).toBe('it_1');
    expect(received).toHaveLength(2);
    expect(received[0]?.key).toBeTruthy();
    expect(received[1]?.key).toBe(received[0]?.key);
    expect(waits).toEqual([1000]);
  });

  it('answers any other 409 at once', async () => {
    handler = (_request, response) => send(response, 409, { code: 'type_has_items' });
    const { error } = await client().DELETE('/v1/dynadata/types/{type}', { params: { path: { type: 'x' } } });
    expect(error?.code).toBe('type_has_items');
    expect(received).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('names the SDK, its version and the runtime in the User-Agent, unless the caller sets one', async () => {
    const { version } = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    );
    handler = (_request, response) => send(response, 200, { events: [], nextCursor: null });
    await client().GET('/v1/self');
    await client().paginate('listEvents', { query: {} }).next();
    await client({ headers: { 'User-Agent': 'my-app/1.0' } }).GET('/v1/self');
    const agent = `messaging-dynadata-api-sdk/${version} node/${process.versions.node}`;
    expect(received.map((r) => r.userAgent)).toEqual([agent, agent, 'my-app/1.0']);
  });
});
