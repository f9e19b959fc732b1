import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client.js';
import { retryAfterMs } from '../../src/retry.js';

/**
 * The request layer with a stubbed `fetch`: which calls get an idempotency key, that the key survives
 * retries, what is retried and how long it waits.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Seen {
  method: string;
  url: string;
  key: string | null;
  apiKey: string | null;
  body: string;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A fetch answering the queued answers in turn (an Error is thrown, as a network failure). */
const stub = (answers: (Response | Error)[]) => {
  const seen: Seen[] = [];
  const waits: number[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    seen.push({
      method: request.method,
      url: request.url,
      key: request.headers.get('idempotency-key'),
      apiKey: request.headers.get('x-api-key'),
      body: await request.text(),
    });
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no answer queued');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const client = createApiClient({
    baseUrl: 'https://api.example.test',
    credential: { apiKey: 'sk-test' },
    fetch,
    retry: {
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
    },
  });
  return { client, seen, waits };
};

const createItem = (client: ReturnType<typeof stub>['client'], key?: string) =>
  client.POST('/v1/dynadata/type/{type}/create', {
    params: {
      path: { type: 'contacts' },
      ...(key === undefined ? {} : { header: { 'Idempotency-Key': key } }),
    },
    body: { name: 'Ada' },
  });

describe('the request layer', () => {
  it('keeps one generated Idempotency-Key across the retries of a POST after a 503 and a 429', async () => {
    const { client, seen, waits } = stub([
      json(503, { code: 'internal' }),
      json(429, { code: 'throttled' }, { 'retry-after': '2' }),
      json(201, { _id: 'it_1', _version: 1 }),
    ]);
    const { data, response } = await createItem(client);
    expect(response.status).toBe(201);
    expect(data?._id).toBe('it_1');
    expect(seen).toHaveLength(3);
    const [first] = seen;
    expect(first?.key).toMatch(UUID);
    expect(seen.map((s) => s.key)).toEqual([first?.key, first?.key, first?.key]);
    expect(seen.every((s) => s.body === '{"name":"Ada"}' && s.apiKey === 'sk-test')).toBe(true);
    // Backoff with jitter after the 503 (0.5 × 200 ms), then the 429's Retry-After of 2 s.
    expect(waits).toEqual([100, 2000]);
  });

  it("keeps the caller's own Idempotency-Key", async () => {
    const { client, seen } = stub([json(500, {}), json(201, { _id: 'it_2' })]);
    await createItem(client, 'order-42');
    expect(seen.map((s) => s.key)).toEqual(['order-42', 'order-42']);
  });

  it('gives every call a key of its own', async () => {
    const { client, seen } = stub([json(201, { _id: 'a' }), json(201, { _id: 'b' })]);
    await createItem(client);
    await createItem(client);
    expect(seen[0]?.key).not.toBe(seen[1]?.key);
  });

  it('finds the operation behind a base URL with a path of its own (a custom domain mapping)', async () => {
    const keys: (string | null)[] = [];
    const client = createApiClient({
      baseUrl: 'https://api.example.test/prod',
      fetch: async (request) => {
        keys.push(request.headers.get('idempotency-key'));
        return json(201, {});
      },
    });
    await createItem(client);
    expect(keys[0]).toMatch(UUID);
  });

  it('sends no key to an operation that does not declare one, and never repeats it after a 5xx', async () => {
    const { client, seen } = stub([json(502, { code: 'internal' })]);
    const { response } = await client.POST('/v1/spoken-text', { body: { markdown: '# Hi' } });
    expect(response.status).toBe(502);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.key).toBeNull();
  });

  it('repeats a POST without a key after a 429, which the API refuses before doing any work', async () => {
    const { client, seen } = stub([json(429, { code: 'throttled' }), json(202, { job: { id: 'tc_1' } })]);
    const { response } = await client.POST('/v1/transcodes', { body: { fullPath: 'a.wav', preset: 'wav' } });
    expect(response.status).toBe(202);
    expect(seen).toHaveLength(2);
  });

  it('retries a GET after network errors and stops at maxAttempts', async () => {
    const { client, seen, waits } = stub([
      new TypeError('fetch failed'),
      json(503, {}),
      json(503, { code: 'internal' }),
    ]);
    const { response, error } = await client.GET('/v1/self');
    expect(response.status).toBe(503);
    expect(error).toEqual({ code: 'internal' });
    expect(seen).toHaveLength(3);
    expect(waits).toEqual([100, 200]);
  });

  it('throws the network error of the last attempt', async () => {
    const { client } = stub([new TypeError('a'), new TypeError('b'), new TypeError('fetch failed')]);
    await expect(client.GET('/v1/self')).rejects.toThrow('fetch failed');
  });

  it('answers at once a 429 whose Retry-After is longer than the longest wait', async () => {
    const { client, seen, waits } = stub([json(429, { code: 'quota_exceeded' }, { 'retry-after': '86400' })]);
    const { error } = await client.GET('/v1/self');
    expect(error?.code).toBe('quota_exceeded');
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('does not retry a 4xx other than 429', async () => {
    const { client, seen } = stub([json(404, { code: 'not_found' })]);
    expect((await client.GET('/v1/webhooks/{id}', { params: { path: { id: 'wh_x' } } })).error?.code).toBe(
      'not_found',
    );
    expect(seen).toHaveLength(1);
  });

  it('sends a JWT as x-jwt-token and a bearer credential as Authorization', async () => {
    const headers: Headers[] = [];
    const fetch = async (request: Request) => {
      headers.push(request.headers);
      return json(200, {});
    };
    await createApiClient({ baseUrl: 'https://a.test', credential: { jwt: 'ey.jwt' }, fetch }).GET(
      '/v1/self',
    );
    await createApiClient({ baseUrl: 'https://a.test', credential: { bearer: 'sk-b' }, fetch }).POST(
      '/v1/mcp',
      {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      },
    );
    expect(headers[0]?.get('x-jwt-token')).toBe('ey.jwt');
    expect(headers[1]?.get('authorization')).toBe('Bearer sk-b');
  });

  it('reads Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(61_000).toUTCString(), 1_000)).toBe(60_000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});
