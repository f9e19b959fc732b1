import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createContact, createTenant, expectProblem, runAdmin } from './support';
import { eventually, startReceiver, verifySignature } from './webhook-receiver';
import { savedWorkflow } from './workflow-support';

/**
 * Messages that close the loop: the company's sender reports what became of a message (`delivered`, `read`,
 * `failed`), forward only, each move raising its event; contacts' messages come in (`message.received`,
 * which starts workflows); a contact's thread shows both directions, newest first; another company sees none.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

type Item = Record<string, unknown> & { _id: string; status: string };

const setup = async () => {
  const t = await createTenant({ plan: 'starter' });
  const headers = { 'x-api-key': t.apiKey };
  const path = `/channel-${t.companyId}`;
  const set = await runAdmin('channels', 'set', '--company', t.companyId, '--url', `${receiver.base}${path}`);
  expect(set.code, set.err).toBe(0);
  const eventsPath = `/events-${t.companyId}`;
  const endpoint = await call('POST', '/v1/webhooks', {
    headers,
    body: {
      url: `${receiver.base}${eventsPath}`,
      events: ['message.sent', 'message.delivered', 'message.read', 'message.failed', 'message.received'],
    },
  });
  expect(endpoint.status).toBe(201);
  const endpointSecret = String(endpoint.json.secret);
  const contactId = await createContact(headers, 'Ada');
  const message = async (id: string) =>
    (await call('GET', `/v1/dynadata/type/messages/item/${id}`, { headers })).json as Item;
  /** Sends a text to the contact and waits until the channel accepted it (`sent`). */
  const sent = async (text = 'Hello Ada') => {
    const send = await call('POST', `/v1/contacts/${contactId}/send_message`, {
      headers,
      body: { type: 'text', body: { text } },
    });
    expect(send.status).toBe(202);
    const id = String(send.json.messageId);
    const got = await eventually(
      () => message(id),
      (m) => m.status !== 'queued',
    );
    expect(got.status).toBe('sent');
    return id;
  };
  const report = (id: string, body: Record<string, unknown>, h: Record<string, string> = headers) =>
    call('POST', `/v1/messages/${id}/status`, { headers: h, body });
  return { t, headers, contactId, message, sent, report, eventsPath, endpointSecret };
};

describe('message status reports', () => {
  it('moves a sent message to delivered then read, each raising its event, and refuses read → delivered', async () => {
    const s = await setup();
    const id = await s.sent();
    const delivered = await s.report(id, { status: 'delivered', at: '2026-01-02T03:04:05.000Z' });
    expect(delivered.status, JSON.stringify(delivered.json)).toBe(200);
    expect(delivered.json).toMatchObject({
      changed: true,
      message: { _id: id, status: 'delivered', deliveredAt: '2026-01-02T03:04:05.000Z' },
    });
    const again = await s.report(id, { status: 'delivered' });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ changed: false, message: { status: 'delivered' } });
    const read = await s.report(id, { status: 'read' });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ changed: true, message: { status: 'read' } });
    const back = await s.report(id, { status: 'delivered' });
    expectProblem(back, 409, 'message_status_regression');
    expect(back.json.messageStatus).toBe('read');
    expectProblem(await s.report(id, { status: 'failed', reason: 'late' }), 409, 'message_status_regression');
    // The history is on the message.
    const stored = await s.message(id);
    expect(stored).toMatchObject({
      status: 'read',
      direction: 'outbound',
      deliveredAt: '2026-01-02T03:04:05.000Z',
    });
    expect(typeof stored.readAt).toBe('string');
    expect(typeof stored.sentAt).toBe('string');
    // Each move raised one event: listed, and delivered to the subscribed endpoint.
    const events = await call('GET', '/v1/events?limit=100', { headers: s.headers });
    const types = (events.json.events as { type: string; data: { _id?: string } }[])
      .filter((e) => e.data._id === id)
      .map((e) => e.type)
      .sort();
    expect(types).toEqual(['message.delivered', 'message.read', 'message.sent']);
    const hooks = await eventually(
      () => receiver.of(s.eventsPath),
      (r) => r.filter((x) => x.json.data._id === id).length >= 3,
    );
    const mine = hooks.filter((x) => x.json.data._id === id);
    expect(mine.map((x) => x.json.type).sort()).toEqual([
      'message.delivered',
      'message.read',
      'message.sent',
    ]);
    expect(mine.find((x) => x.json.type === 'message.read')?.json.data).toMatchObject({ status: 'read' });
  });

  it('takes a failure with its reason, then nothing else; a report may overtake `sent`', async () => {
    const s = await setup();
    const id = await s.sent();
    const failed = await s.report(id, { status: 'failed', reason: 'handset unreachable' });
    expect(failed.status).toBe(200);
    expect(failed.json).toMatchObject({
      changed: true,
      message: { status: 'failed', failureReason: 'handset unreachable' },
    });
    expect((await s.report(id, { status: 'failed' })).json).toMatchObject({ changed: false });
    expectProblem(await s.report(id, { status: 'delivered' }), 409, 'message_status_regression');
    const hooks = await eventually(
      () => receiver.of(s.eventsPath),
      (r) => r.some((x) => x.json.type === 'message.failed' && x.json.data._id === id),
    );
    expect(hooks.some((x) => x.json.type === 'message.failed' && x.json.data._id === id)).toBe(true);
  });

  it('refuses bad reports at their pointers, and a key without messages:report', async () => {
    const s = await setup();
    const id = await s.sent();
    const bad = await s.report(id, { status: 'sent' });
    expectProblem(bad, 400, 'validation_failed');
    expect(JSON.stringify(bad.json.errors)).toContain('/body/status');
    const future = await s.report(id, { status: 'read', at: '2999-01-01T00:00:00.000Z' });
    expectProblem(future, 400, 'validation_failed');
    expect(JSON.stringify(future.json.errors)).toContain('/body/at');
    const tooLong = await s.report(id, { status: 'failed', reason: 'x'.repeat(501) });
    expectProblem(tooLong, 400, 'validation_failed');
    const { createApiKey } = await import('../../functions/shared/data/api-keys');
    const { key } = await createApiKey(
      s.t.companyId,
      { name: 'reader', scopes: ['dynadata:read', 'messages:send'] },
      new Date(),
    );
    expectProblem(await s.report(id, { status: 'read' }, { 'x-api-key': key }), 403, 'insufficient_scope');
    expectProblem(await s.report('01jd3xq0a6m5r6y1z8k7w2v4bn', { status: 'read' }), 404, 'not_found');
  });
});

describe('inbound messages and the thread', () => {
  it('stores an inbound message on the thread (newest first, both directions) and starts a workflow', async () => {
    const s = await setup();
    await savedWorkflow(s.t.companyId, {
      id: 'on-inbound',
      name: 'On inbound',
      on: { events: ['message.received'] },
      steps: [
        {
          id: 'say',
          action: 'actions/speech/spoken-text',
          with: { markdown: 'Got {{ trigger.event.data.body.text }}' },
        },
      ],
      return: { text: '{{ steps.say.output.text }}', from: '{{ trigger.event.data.contactId }}' },
    });
    const out = await s.sent('Your order has shipped.');
    const inbound = await call('POST', '/v1/messages/inbound', {
      headers: s.headers,
      body: { contactId: s.contactId, message: { type: 'text', body: { text: 'Thanks!' } } },
    });
    expect(inbound.status, JSON.stringify(inbound.json)).toBe(201);
    expect(inbound.json.status).toBe('received');
    const inId = String(inbound.json.messageId);
    expect(await s.message(inId)).toMatchObject({
      direction: 'inbound',
      status: 'received',
      contactId: s.contactId,
    });
    // Reports are for outbound messages only.
    expectProblem(await s.report(inId, { status: 'read' }), 409, 'message_status_regression');

    const thread = await call('GET', `/v1/contacts/${s.contactId}/messages`, { headers: s.headers });
    expect(thread.status).toBe(200);
    const messages = thread.json.messages as Item[];
    expect(messages.map((m) => [m._id, m.direction])).toEqual([
      [inId, 'inbound'],
      [out, 'outbound'],
    ]);
    expect(thread.json.nextCursor).toBeNull();
    const first = await call('GET', `/v1/contacts/${s.contactId}/messages?limit=1`, { headers: s.headers });
    expect((first.json.messages as Item[]).map((m) => m._id)).toEqual([inId]);
    const second = await call(
      'GET',
      `/v1/contacts/${s.contactId}/messages?limit=1&cursor=${String(first.json.nextCursor)}`,
      { headers: s.headers },
    );
    expect((second.json.messages as Item[]).map((m) => m._id)).toEqual([out]);
    expect(second.json.nextCursor).toBeNull();

    // message.received started the workflow, with the message as its trigger.
    const runs = await eventually(
      async () =>
        (await call('GET', '/v1/workflows/on-inbound/runs', { headers: s.headers })).json.runs as {
          runId: string;
          status: string;
        }[],
      (r) => r.length > 0 && r.every((x) => x.status !== 'running'),
      40_000,
    );
    expect(runs).toHaveLength(1);
    const run = await call('GET', `/v1/workflows/on-inbound/runs/${runs[0]?.runId}`, { headers: s.headers });
    expect(run.json.run).toMatchObject({
      status: 'success',
      trigger: { type: 'event', eventType: 'message.received' },
      result: { from: s.contactId, text: 'Got Thanks!' },
    });
    // And the subscribed endpoint got message.received, signed.
    const hooks = await eventually(
      () => receiver.of(s.eventsPath),
      (r) => r.some((x) => x.json.type === 'message.received'),
    );
    const hook = hooks.find((x) => x.json.type === 'message.received');
    expect(hook?.json.data).toMatchObject({ _id: inId, direction: 'inbound' });
    expect(hook && verifySignature(s.endpointSecret, hook)).toBe(true);
  });

  it('refuses an unknown contact and a bad body at their pointers', async () => {
    const s = await setup();
    const unknown = await call('POST', '/v1/messages/inbound', {
      headers: s.headers,
      body: { contactId: 'nobody', message: { type: 'text', body: { text: 'Hi' } } },
    });
    expectProblem(unknown, 404, 'not_found');
    const bad = await call('POST', '/v1/messages/inbound', {
      headers: s.headers,
      body: { contactId: s.contactId, message: { type: 'text', body: { text: '' } } },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(JSON.stringify(bad.json.errors)).toContain('/body/message/body/text');
    expectProblem(
      await call('GET', `/v1/contacts/${s.contactId}/messages?cursor=garbage!!`, { headers: s.headers }),
      400,
      'validation_failed',
    );
  });
});

describe('messages stored before threads', () => {
  it('are put on their thread by the reindex command, as outbound, once', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const contactId = await createContact(headers, 'Ada');
    const { insertItem } = await import('../../functions/shared/data/dynadata-items');
    const stamp = new Date().toISOString();
    const data = { contactId, type: 'text', body: { text: 'Old' }, status: 'sent', attempts: 1 };
    const _id = '01jd3xq0a6m5r6y1z8k7w2v4bn';
    await insertItem(
      t.companyId,
      'messages',
      {
        _id,
        _version: 1,
        createdAt: stamp,
        updatedAt: stamp,
        data,
        size: Buffer.byteLength(JSON.stringify(data)),
      },
      {},
    );
    const thread = () => call('GET', `/v1/contacts/${contactId}/messages`, { headers });
    expect((await thread()).json.messages).toEqual([]);
    const first = await runAdmin('messages', 'reindex', '--company', t.companyId, '--json');
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out)).toEqual({ messages: 1, indexed: 1, alreadyIndexed: 0 });
    expect((await thread()).json.messages).toMatchObject([{ _id, direction: 'outbound', status: 'sent' }]);
    const again = await runAdmin('messages', 'reindex', '--company', t.companyId, '--json');
    expect(JSON.parse(again.out)).toEqual({ messages: 1, indexed: 0, alreadyIndexed: 1 });
  });
});

describe('tenant isolation', () => {
  it("another company's message and contact are 404 on status, inbound and thread", async () => {
    const s = await setup();
    const id = await s.sent();
    const other = await createTenant();
    const h = { 'x-api-key': other.apiKey };
    expectProblem(await s.report(id, { status: 'delivered' }, h), 404, 'not_found');
    expectProblem(
      await call('GET', `/v1/contacts/${s.contactId}/messages`, { headers: h }),
      404,
      'not_found',
    );
    expectProblem(
      await call('POST', '/v1/messages/inbound', {
        headers: h,
        body: { contactId: s.contactId, message: { type: 'text', body: { text: 'Hi' } } },
      }),
      404,
      'not_found',
    );
    expect((await s.message(id)).status).toBe('sent');
  });
});
