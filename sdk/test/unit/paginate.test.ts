import { describe, expect, expectTypeOf, it } from 'vitest';
import { createApiClient } from '../../src/client.js';
import { ApiError } from '../../src/errors.js';
import type { PagedOperationId } from '../../src/operation-types.js';
import type { DynadataItem, Event } from '../../src/resources.js';

/**
 * The page iterator with a stubbed `fetch`: the Dynadata list (cursor in the body, `nextCursor` out) and the
 * events list (the legacy `after` / `next` pair in the query).
 */
const item = (id: string) => ({ _id: id, _version: 1, createdAt: 'c', updatedAt: 'u', name: id });

const serve = (pages: Record<string, { body: unknown; status?: number }>) => {
  const requests: { method: string; url: URL; body: string }[] = [];
  const client = createApiClient({
    baseUrl: 'https://api.example.test/',
    credential: { apiKey: 'sk-test' },
    retry: { maxAttempts: 1 },
    fetch: async (request) => {
      const url = new URL(request.url);
      const body = await request.text();
      requests.push({ method: request.method, url, body });
      const cursor =
        request.method === 'GET'
          ? url.searchParams.get('cursor')
          : (JSON.parse(body) as { cursor?: string }).cursor;
      const page = pages[cursor ?? 'first'];
      return new Response(JSON.stringify(page?.body ?? {}), { status: page?.status ?? 200 });
    },
  });
  return { client, requests };
};

const collect = async <T>(iterator: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const one of iterator) all.push(one);
  return all;
};

describe('the page iterator', () => {
  it('knows the paged operations from the document', () => {
    expectTypeOf<'listDynadataItems'>().toExtend<PagedOperationId>();
    expectTypeOf<'listEvents'>().toExtend<PagedOperationId>();
    expectTypeOf<'getSelf'>().not.toExtend<PagedOperationId>();
  });

  it('yields every Dynadata item, following nextCursor in the body until it is null', async () => {
    const { client, requests } = serve({
      first: { body: { items: [item('a'), item('b')], nextCursor: 'c2' } },
      c2: { body: { items: [item('c'), item('d')], nextCursor: 'c3' } },
      c3: { body: { items: [item('e')], nextCursor: null } },
    });
    const iterator = client.paginate('listDynadataItems', {
      path: { type: 'contacts' },
      body: { limit: 2, filter: { name: { ne: 'z' } } },
    });
    expectTypeOf(iterator).toEqualTypeOf<AsyncGenerator<DynadataItem>>();
    const items = await collect(iterator);
    expect(items.map((i) => i._id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(requests.map((r) => [r.method, r.url.pathname, JSON.parse(r.body)])).toEqual([
      ['POST', '/v1/dynadata/type/contacts/list', { limit: 2, filter: { name: { ne: 'z' } } }],
      ['POST', '/v1/dynadata/type/contacts/list', { limit: 2, filter: { name: { ne: 'z' } }, cursor: 'c2' }],
      ['POST', '/v1/dynadata/type/contacts/list', { limit: 2, filter: { name: { ne: 'z' } }, cursor: 'c3' }],
    ]);
  });

  it('yields every event, following nextCursor as ?cursor=', async () => {
    const event = (id: string) => ({ id, type: 'ping', createdAt: 'c', data: {} });
    const { client, requests } = serve({
      first: { body: { events: [event('evt_3'), event('evt_2')], nextCursor: 'evt_2', next: 'evt_2' } },
      evt_2: { body: { events: [event('evt_1')], nextCursor: null, next: null } },
    });
    const events = await collect(client.paginate('listEvents', { query: { type: 'ping', limit: 2 } }));
    expectTypeOf(events).toEqualTypeOf<Event[]>();
    expect(events.map((e) => e.id)).toEqual(['evt_3', 'evt_2', 'evt_1']);
    expect(requests.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      'GET /v1/events?type=ping&limit=2',
      'GET /v1/events?type=ping&limit=2&cursor=evt_2',
    ]);
    expect(requests.every((r) => r.body === '')).toBe(true);
  });

  it('stops after the first page when the answer has no next cursor, and starts from a given cursor', async () => {
    const { client, requests } = serve({ c9: { body: { items: [item('z')] } } });
    const items = await collect(client.paginate('listDynadataItems', { path: { type: 't' }, cursor: 'c9' }));
    expect(items.map((i) => i._id)).toEqual(['z']);
    expect(requests.map((r) => JSON.parse(r.body))).toEqual([{ cursor: 'c9' }]);
  });

  it('throws the API problem of a refused page as an ApiError', async () => {
    const { client } = serve({
      first: { status: 404, body: { code: 'not_found', detail: 'No such type.', requestId: 'req_1' } },
    });
    const error = await collect(client.paginate('listDynadataItems', { path: { type: 'nope' } })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', requestId: 'req_1' });
  });

  it('refuses a path without its parameters at compile time', () => {
    const { client } = serve({});
    // @ts-expect-error the path parameter `type` is required by the Dynadata list
    expectTypeOf(client.paginate('listDynadataItems', {})).not.toBeNever();
    // @ts-expect-error getSelf is not a paged operation
    expectTypeOf(client.paginate('getSelf', {})).not.toBeNever();
  });
});
