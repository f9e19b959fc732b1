import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, createTenant } from '../../../test/integration/support';
import { eventually, startReceiver } from '../../../test/integration/webhook-receiver';
import { type ApiClient, createApiClient, type DynadataItem, verifyWebhook } from '../../src/index.js';

/**
 * The SDK against the local stack: an API key client, Dynadata items created and read back page after page
 * by the iterator, a POST whose answer is lost retried with its idempotency key (the API answers the first
 * answer again instead of creating a second item), a real signed webhook delivery verified, and conditional
 * writes that name the `ETag` the previous write answered.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tenant: Awaited<ReturnType<typeof createTenant>>;
let client: ApiClient;
/** Every request the client sent: method and path. */
const sent: string[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  tenant = await createTenant();
  client = createApiClient({
    baseUrl: apiUrl,
    credential: { apiKey: tenant.apiKey },
    fetch: (request) => {
      sent.push(`${request.method} ${new URL(request.url).pathname}`);
      return fetch(request);
    },
  });
});
afterAll(() => receiver.close());

const collect = async <T>(iterator: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const one of iterator) all.push(one);
  return all;
};

describe('the SDK against the local stack', () => {
  it('reads /v1/self with an API key', async () => {
    const { data, error } = await client.GET('/v1/self');
    expect(error).toBeUndefined();
    expect(data?.company.id).toBe(tenant.companyId);
  });

  it('iterates every Dynadata item across several pages', async () => {
    const answers = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        client.POST('/v1/dynadata/type/{type}/create', {
          params: { path: { type: 'contacts' } },
          body: { name: `Contact ${i}` },
        }),
      ),
    );
    expect(answers.map((a) => a.error)).toEqual(Array(7).fill(undefined));
    const created = answers.map((a) => a.data?._id ?? '');
    sent.length = 0;
    const items: DynadataItem[] = await collect(
      client.paginate('listDynadataItems', { path: { type: 'contacts' }, body: { limit: 3 } }),
    );
    expect(items.map((item) => item._id).sort()).toEqual([...created].sort());
    expect(sent).toEqual(Array(3).fill('POST /v1/dynadata/type/contacts/list'));
  });

  it('retries a POST whose answer was lost with the same key: the API answers the first answer again', async () => {
    const keys: (string | null)[] = [];
    let lost = false;
    const flaky = createApiClient({
      baseUrl: apiUrl,
      credential: { apiKey: tenant.apiKey },
      retry: { baseDelayMs: 10 },
      fetch: async (request) => {
        keys.push(request.headers.get('idempotency-key'));
        const response = await fetch(request);
        if (lost) return response;
        lost = true;
        await response.body?.cancel();
        return new Response('{"code":"internal"}', { status: 503 });
      },
    });
    const { data, response } = await flaky.POST('/v1/dynadata/type/{type}/create', {
      params: { path: { type: 'contacts' } },
      body: { name: 'Only once' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
    const all = await collect(client.paginate('listDynadataItems', { path: { type: 'contacts' } }));
    expect(all.filter((item) => item.name === 'Only once').map((item) => item._id)).toEqual([data?._id]);
  });

  it('verifies a real signed webhook delivery and pages the events back', async () => {
    const endpoint = await client.POST('/v1/webhooks', {
      body: { url: `${receiver.base}/sdk`, events: ['*'] },
    });
    expect(endpoint.error, JSON.stringify(endpoint.error)).toBeUndefined();
    const secret = endpoint.data?.secret ?? '';
    const path = { id: endpoint.data?.endpoint.id ?? '' };
    const first = await client.POST('/v1/webhooks/{id}/test', { params: { path } });
    const second = await client.POST('/v1/webhooks/{id}/test', { params: { path } });
    const ids = [second.data?.event.id, first.data?.event.id];

    const got = await eventually(
      () => receiver.of('/sdk'),
      (r) => r.length >= 2,
    );
    const verified = got.map((delivery) => verifyWebhook(secret, delivery.body, delivery.headers));
    expect(verified.map((event) => event.id).sort()).toEqual([...ids].sort());
    expect(verified.every((event) => event.type === 'ping')).toBe(true);
    const [delivery] = got;
    expect(() => verifyWebhook(secret, `${delivery?.body} `, delivery?.headers ?? {})).toThrow();

    sent.length = 0;
    const events = await collect(client.paginate('listEvents', { query: { type: 'ping', limit: 1 } }));
    expect(events.map((event) => event.id)).toEqual(ids);
    // One event per page: the second page is the last (its `next` is null), so two requests.
    expect(sent).toEqual(['GET /v1/events', 'GET /v1/events']);
  });

  it('changes and deletes an endpoint with the ETag each write answered, with no read between', async () => {
    const created = await client.POST('/v1/webhooks', {
      body: { url: `${receiver.base}/tagged`, events: ['*'] },
    });
    const id = created.data?.endpoint.id ?? '';
    const first = created.response.headers.get('etag') ?? '';
    const read = await client.GET('/v1/webhooks/{id}', { params: { path: { id } } });
    expect(read.response.headers.get('etag')).toBe(first);
    const disabled = await client.PATCH('/v1/webhooks/{id}', {
      params: { path: { id }, header: { 'If-Match': first } },
      body: { enabled: false },
    });
    expect(disabled.error, JSON.stringify(disabled.error)).toBeUndefined();
    const second = disabled.response.headers.get('etag') ?? '';
    expect(second).not.toBe(first);
    const stale = await client.DELETE('/v1/webhooks/{id}', {
      params: { path: { id }, header: { 'If-Match': first } },
    });
    expect(stale.error?.code).toBe('precondition_failed');
    const deleted = await client.DELETE('/v1/webhooks/{id}', {
      params: { path: { id }, header: { 'If-Match': second } },
    });
    expect(deleted.data).toEqual({ deleted: true, id });
  });
});
