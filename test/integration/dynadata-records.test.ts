import { describe, expect, it } from 'vitest';
import { storeObjectRecord } from './stored-object-fixture';
import { call, createContact, createTenant, expectProblem } from './support';

const { mintJwt } = await import('../../functions/shared/auth/jwt-mint');
const OPERATOR = { kind: 'operator' } as const;
const { currentSigningKey, loadKeySet } = await import('../../functions/shared/auth/signing-keys');

const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 8000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 150));
  }
};

describe('log_entries through Dynadata', () => {
  it('lists the audit trail newest first, reads one entry and filters by status, method and time', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const started = new Date(Date.now() - 1000).toISOString();
    await call('GET', '/v1/self', { headers });
    await call('GET', '/v1/dynadata/type/nope/schema', { headers });
    const listed = await eventually(
      () => call('POST', '/v1/dynadata/type/log_entries/list', { headers, body: { limit: 100 } }),
      (r) => (r.json.items as unknown[]).length >= 2,
    );
    const items = listed.json.items as { _id: string; path: string; status: number; method: string }[];
    expect(items.map((i) => i._id)).toEqual([...items.map((i) => i._id)].sort().reverse());
    const self = items.find((i) => i.path === '/v1/self');
    expect(self).toMatchObject({ method: 'GET', status: 200 });
    const one = await call('GET', `/v1/dynadata/type/log_entries/item/${self?._id}`, { headers });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ _id: self?._id, path: '/v1/self' });
    const notFound = await call('POST', '/v1/dynadata/type/log_entries/list', {
      headers,
      body: { filter: { status: 404, method: 'GET', time: { gte: started } }, limit: 100 },
    });
    expect(notFound.status, JSON.stringify(notFound.json)).toBe(200);
    const filtered = notFound.json.items as { status: number; path: string }[];
    expect(filtered.length).toBeGreaterThanOrEqual(1);
    expect(filtered.every((i) => i.status === 404)).toBe(true);
    const future = await call('POST', '/v1/dynadata/type/log_entries/list', {
      headers,
      body: { filter: { time: { gte: new Date(Date.now() + 3600_000).toISOString() } } },
    });
    expect(future.json.items).toEqual([]);
    const schema = await call('GET', '/v1/dynadata/type/log_entries/schema', { headers });
    expect(schema.status).toBe(200);
    const byId = async (filter: unknown) =>
      call('POST', '/v1/dynadata/type/log_entries/list', { headers, body: { filter, limit: 100 } });
    const ids = (r: Awaited<ReturnType<typeof byId>>) => {
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      return (r.json.items as { _id: string }[]).map((i) => i._id);
    };
    const selfId = String(self?._id);
    expect(ids(await byId({ _id: selfId }))).toEqual([selfId]);
    expect(ids(await byId({ _id: { gte: selfId } }))).toContain(selfId);
    expect(ids(await byId({ _id: { lte: selfId } }))).toContain(selfId);
    const before = ids(await byId({ _id: { lt: selfId } }));
    expect(before).not.toContain(selfId);
    expect(before.every((id) => id < selfId)).toBe(true);
    const after = ids(await byId({ _id: { gt: selfId } }));
    expect(after).not.toContain(selfId);
    expect(after.every((id) => id > selfId)).toBe(true);
    expect(ids(await byId({ _id: { prefix: selfId.slice(0, 16) } }))).toContain(selfId);
    expectProblem(await byId({ _id: { ne: selfId } }), 400, 'validation_failed');
  });

  it('refuses create, update and delete with 403 log_entry_writes_not_allowed for keys and JWTs', async () => {
    const t = await createTenant();
    const token = (
      await mintJwt(
        {
          companyId: t.companyId,
          source: OPERATOR,
          scopes: ['dynadata:write', 'dynadata:read'],
          advanced: true,
        },
        currentSigningKey(await loadKeySet()),
        new Date(),
      )
    ).token;
    const readOnly = await createTenant({ scopes: ['dynadata:read'] });
    const noScopes = (
      await mintJwt(
        { companyId: t.companyId, source: OPERATOR },
        currentSigningKey(await loadKeySet()),
        new Date(),
      )
    ).token;
    const credentials: Record<string, string>[] = [
      { 'x-api-key': t.apiKey },
      { 'x-jwt-token': token },
      { 'x-auth-token': t.apiKey },
      { 'x-api-key': readOnly.apiKey },
      { 'x-jwt-token': noScopes },
    ];
    for (const headers of credentials) {
      expectProblem(
        await call('POST', '/v1/dynadata/type/log_entries/create', {
          headers,
          body: { requestId: 'r', time: new Date().toISOString(), method: 'GET', path: '/', status: 200 },
        }),
        403,
        'log_entry_writes_not_allowed',
      );
      expectProblem(
        await call('POST', '/v1/dynadata/type/log_entries/update', {
          headers,
          body: { _id: 'x', status: 1 },
        }),
        403,
        'log_entry_writes_not_allowed',
      );
      expectProblem(
        await call('DELETE', '/v1/dynadata/type/log_entries/item/000000000000001-x', { headers }),
        403,
        'log_entry_writes_not_allowed',
      );
    }
  });
});

describe('send_message', () => {
  it('stores a queued message and answers 202 with its id; the message is readable as a messages item', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const contactId = await createContact(headers);
    const res = await call('POST', `/v1/contacts/${contactId}/send_message`, {
      headers,
      body: { type: 'text', body: { text: 'Hello' } },
    });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ messageId: expect.stringMatching(/^[0-9a-z]{26}$/), status: 'queued' });
    const stored = await call('GET', `/v1/dynadata/type/messages/item/${res.json.messageId}`, { headers });
    expect(stored.json).toMatchObject({ contactId, type: 'text', body: { text: 'Hello' } });
    expect(['queued', 'sent', 'failed']).toContain(stored.json.status);
    expectProblem(
      await call('POST', '/v1/dynadata/type/messages/create', {
        headers,
        body: { contactId, type: 'text', body: {}, status: 'sent' },
      }),
      403,
      'forbidden',
    );
  });

  it('validates the body with pointers and answers 404 for unknown contacts and foreign files', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const contactId = await createContact(headers);
    const empty = await call('POST', `/v1/contacts/${contactId}/send_message`, {
      headers,
      body: { type: 'text', body: { text: '' } },
    });
    expectProblem(empty, 400, 'validation_failed');
    expect((empty.json.errors as { pointer: string }[])[0]?.pointer).toBe('/body/body/text');
    const long = await call('POST', `/v1/contacts/${contactId}/send_message`, {
      headers,
      body: { type: 'text', body: { text: 'x'.repeat(4097) } },
    });
    expectProblem(long, 400, 'validation_failed');
    const fax = await call('POST', `/v1/contacts/${contactId}/send_message`, {
      headers,
      body: { type: 'fax', body: {} },
    });
    expectProblem(fax, 400, 'validation_failed');
    const noFile = await call('POST', `/v1/contacts/${contactId}/send_message`, {
      headers,
      body: { type: 'image', body: { caption: 'x' } },
    });
    expectProblem(noFile, 400, 'validation_failed');
    expect((noFile.json.errors as { pointer: string }[]).map((e) => e.pointer)).toContain('/body/body/file');
    expectProblem(
      await call('POST', '/v1/contacts/01unknowncontact/send_message', {
        headers,
        body: { type: 'text', body: { text: 'hi' } },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', `/v1/contacts/${contactId}/send_message`, {
        headers,
        body: { type: 'image', body: { file: { fullPath: `companies/${other.companyId}/pic.png` } } },
      }),
      404,
      'not_found',
    );
    const pic = `companies/${t.companyId}/pic.png`;
    const sendImage = () =>
      call('POST', `/v1/contacts/${contactId}/send_message`, {
        headers,
        body: { type: 'image', body: { file: { fullPath: pic }, caption: 'Look' } },
      });
    expectProblem(await sendImage(), 404, 'not_found');
    await storeObjectRecord(t.companyId, pic, 'image/png');
    expect((await sendImage()).status).toBe(202);
  });

  it('runs as the contacts item function sendMessage too', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const contactId = await createContact(headers);
    const res = await call(
      'POST',
      `/v1/dynadata/type/contacts/item/${contactId}/executeFunction/sendMessage`,
      {
        headers,
        body: { type: 'text', body: { text: 'via function' } },
      },
    );
    expect(res.status).toBe(202);
    expect(res.json.status).toBe('queued');
    const bad = await call(
      'POST',
      `/v1/dynadata/type/contacts/item/${contactId}/executeFunction/sendMessage`,
      {
        headers,
        body: { type: 'text', body: {} },
      },
    );
    expectProblem(bad, 400, 'validation_failed');
    expect((bad.json.errors as { pointer: string }[])[0]?.pointer).toBe('/body/body/text');
  });

  it('sendMessage needs messages:send as well as dynadata:execute, and sends nothing without it', async () => {
    const executeOnly = await createTenant({
      scopes: ['dynadata:execute', 'dynadata:read', 'dynadata:write'],
    });
    const own = await createContact({ 'x-api-key': executeOnly.apiKey });
    const headers = { 'x-api-key': executeOnly.apiKey };
    const refused = await call('POST', `/v1/dynadata/type/contacts/item/${own}/executeFunction/sendMessage`, {
      headers,
      body: { type: 'text', body: { text: 'no scope' } },
    });
    expectProblem(refused, 403, 'insufficient_scope');
    expect(refused.json.detail).toContain('messages:send');
    const messages = await call('POST', '/v1/dynadata/type/messages/list', { headers, body: {} });
    expect(messages.json.items).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response, refuses another body with 422, and lets one of concurrent duplicates run', async () => {
    const t = await createTenant();
    const key = `k-${Math.random().toString(36).slice(2)}`;
    const headers = { 'x-api-key': t.apiKey, 'idempotency-key': key };
    const first = await call('POST', '/v1/dynadata/type/contacts/create', {
      headers,
      body: { name: 'Once' },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await call('POST', '/v1/dynadata/type/contacts/create', {
      headers,
      body: { name: 'Once' },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual(first.json);
    expectProblem(
      await call('POST', '/v1/dynadata/type/contacts/create', { headers, body: { name: 'Twice' } }),
      422,
      'idempotency_key_reused',
    );
    // The contacts count follows a write by the stream's delay (decision 0063): one contact, and it stays one.
    const count = async () =>
      (
        await call('POST', '/v1/dynadata/type/contacts/executeFunction/count', {
          headers: { 'x-api-key': t.apiKey },
          body: {},
        })
      ).json;
    expect(await eventually(count, (c) => c.count === 1)).toEqual({ count: 1, complete: true, cursor: null });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await count()).toEqual({ count: 1, complete: true, cursor: null });

    const raceKey = `race-${Math.random().toString(36).slice(2)}`;
    const contactId = first.json._id as string;
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        call('POST', `/v1/contacts/${contactId}/send_message`, {
          headers: { 'x-api-key': t.apiKey, 'idempotency-key': raceKey },
          body: { type: 'text', body: { text: 'race' } },
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
    for (const r of results.filter((x) => x.status === 409))
      expectProblem(r, 409, 'idempotency_request_in_progress');
    const ids = new Set(results.filter((r) => r.status === 202).map((r) => r.json.messageId));
    expect(ids.size).toBe(1);
    const messages = await call('POST', '/v1/dynadata/type/messages/executeFunction/count', {
      headers: { 'x-api-key': t.apiKey },
      body: {},
    });
    expect(messages.json).toEqual({ count: 1, complete: true, cursor: null });
  });
});

describe('tenant isolation', () => {
  it('answers 404 for another tenant’s items, types and contacts on every route', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const ha = { 'x-api-key': a.apiKey };
    const hb = { 'x-api-key': b.apiKey };
    const contactId = await createContact(ha);
    expectProblem(
      await call('GET', `/v1/dynadata/type/contacts/item/${contactId}`, { headers: hb }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', '/v1/dynadata/type/contacts/update', {
        headers: hb,
        body: { _id: contactId, name: 'x' },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await call('DELETE', `/v1/dynadata/type/contacts/item/${contactId}`, { headers: hb }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', `/v1/dynadata/type/contacts/item/${contactId}/executeFunction/sendMessage`, {
        headers: hb,
        body: { type: 'text', body: { text: 'x' } },
      }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', `/v1/contacts/${contactId}/send_message`, {
        headers: hb,
        body: { type: 'text', body: { text: 'x' } },
      }),
      404,
      'not_found',
    );
    const { putType } = await import('../../functions/shared/domain/dynadata/type-admin');
    await putType(
      a.companyId,
      {
        name: 'secrets',
        description: '',
        schema: { type: 'object', properties: { s: { type: 'string' } } },
        functions: [],
      },
      new Date(),
    );
    const secret = await call('POST', '/v1/dynadata/type/secrets/create', { headers: ha, body: { s: 'x' } });
    expect(secret.status).toBe(201);
    for (const [method, path, body] of [
      ['GET', '/v1/dynadata/type/secrets/schema', undefined],
      ['GET', '/v1/dynadata/type/secrets/schema/zod', undefined],
      ['POST', '/v1/dynadata/type/secrets/list', {}],
      ['POST', '/v1/dynadata/type/secrets/create', { s: 'y' }],
      ['POST', '/v1/dynadata/type/secrets/validate', { s: 'y' }],
      ['GET', `/v1/dynadata/type/secrets/item/${secret.json._id}`, undefined],
      ['POST', '/v1/dynadata/type/secrets/executeFunction/count', {}],
    ] as const) {
      expectProblem(await call(method, path, { headers: hb, ...(body ? { body } : {}) }), 404, 'not_found');
    }
    const types = await call('GET', '/v1/dynadata/types', { headers: hb });
    expect((types.json.types as { name: string }[]).map((x) => x.name)).not.toContain('secrets');
    const listB = await call('POST', '/v1/dynadata/type/contacts/list', { headers: hb, body: {} });
    expect(listB.json.items).toEqual([]);
    const still = await call('GET', `/v1/dynadata/type/contacts/item/${contactId}`, { headers: ha });
    expect(still.json.name).toBe('Ada');
  });
});
