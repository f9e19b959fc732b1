import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageSendPayload } from '../../functions/shared/routes/event-payloads';
import { call, createTenant, expectProblem, runAdmin } from './support';
import { verifySignature } from './webhook-receiver';

const admin = runAdmin;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: answers each path with the statuses queued for it (then 200). */
const received: Received[] = [];
const plans = new Map<string, number[]>();
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    const path = req.url ?? '/';
    received.push({ path, headers: req.headers, body });
    const status = plans.get(path)?.shift() ?? 200;
    res.writeHead(status).end();
  });
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const verify = verifySignature;

const eventually = async <T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
};

const setup = async (path: string | undefined) => {
  const t = await createTenant();
  const headers = { 'x-api-key': t.apiKey };
  let secret = '';
  if (path !== undefined) {
    const set = await admin('channels', 'set', '--company', t.companyId, '--url', `${base}${path}`, '--json');
    expect(set.code, set.err).toBe(0);
    secret = JSON.parse(set.out).secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
  }
  const contact = await call('POST', '/v1/dynadata/type/contacts/create', { headers, body: { name: 'Ada' } });
  const send = () =>
    call('POST', `/v1/contacts/${contact.json._id}/send_message`, {
      headers,
      body: { type: 'text', body: { text: 'Hello Ada' } },
    });
  const message = (id: string) =>
    eventually(
      () => call('GET', `/v1/dynadata/type/messages/item/${id}`, { headers }),
      (r) => r.json.status !== 'queued',
    );
  return { t, headers, secret, send, message, contactId: contact.json._id as string };
};

describe('message delivery', () => {
  it('delivers to the webhook with a valid Standard Webhooks signature and moves the message to sent', async () => {
    const s = await setup('/ok');
    const sent = await s.send();
    expect(sent.status).toBe(202);
    const id = sent.json.messageId as string;
    const message = await s.message(id);
    // Stored (version 1), then sent with its attempt counted in the same write (version 2).
    expect(message.json).toMatchObject({ status: 'sent', attempts: 1, _version: 2 });
    const delivery = received.find((r) => r.headers['webhook-id'] === `evt_${id}`);
    expect(delivery).toBeDefined();
    if (!delivery) return;
    expect(verify(s.secret, delivery)).toBe(true);
    expect(verify(`whsec_${Buffer.alloc(24).toString('base64')}`, delivery)).toBe(false);
    expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(120);
    // The envelope of every webhook: the event shape, its id the webhook-id.
    const envelope = JSON.parse(delivery.body) as Record<string, unknown>;
    expect(Object.keys(envelope).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
    expect(messageSendPayload().safeParse(envelope).error?.issues ?? []).toEqual([]);
    expect(envelope).toMatchObject({
      id: `evt_${id}`,
      type: 'message.send',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      data: { messageId: id, contactId: s.contactId, message: { type: 'text', body: { text: 'Hello Ada' } } },
    });
  });

  it('retries a failing endpoint with the same webhook-id until it accepts', async () => {
    plans.set('/flaky', [503, 500]);
    const s = await setup('/flaky');
    const id = (await s.send()).json.messageId as string;
    const message = await s.message(id);
    // Two failed attempts written with their count, then the third with the move to sent.
    expect(message.json).toMatchObject({ status: 'sent', attempts: 3, _version: 4 });
    // Status changes keep the database bytes exact: the contact's fields plus the message's fields.
    const { readUsage } = await import('../../functions/shared/data/usage-meters');
    const contact = await call('GET', `/v1/dynadata/type/contacts/item/${s.contactId}`, {
      headers: s.headers,
    });
    const fieldBytes = (item: Record<string, unknown>) => {
      const { _id, _version, createdAt, updatedAt, ...fields } = item;
      return Buffer.byteLength(JSON.stringify(fields), 'utf8');
    };
    // The contact's bytes are counted from the table's stream, a moment after its write (decision 0063).
    const expected = fieldBytes(contact.json) + fieldBytes(message.json);
    const bytes = async () => (await readUsage(s.t.companyId, new Date(), 'month')).databaseBytes;
    expect(await eventually(bytes, (b) => b === expected)).toBe(expected);
    const attempts = received.filter((r) => r.headers['webhook-id'] === `evt_${id}`);
    expect(attempts).toHaveLength(3);
    for (const a of attempts) expect(verify(s.secret, a)).toBe(true);
  });

  it('marks the message failed when the endpoint refuses it, and never moves it back', async () => {
    plans.set('/refuse', [400, 200, 200]);
    const s = await setup('/refuse');
    const id = (await s.send()).json.messageId as string;
    const message = await s.message(id);
    expect(message.json).toMatchObject({ status: 'failed', error: 'webhook answered 400', attempts: 1 });
    const { deliverMessage } = await import('../../functions/shared/domain/messages/delivery');
    expect(await deliverMessage({ companyId: s.t.companyId, messageId: id })).toEqual({ status: 'failed' });
    const again = await call('GET', `/v1/dynadata/type/messages/item/${id}`, { headers: s.headers });
    expect(again.json.status).toBe('failed');
  });

  it('fails a message of a company without a delivery channel', async () => {
    const s = await setup(undefined);
    const id = (await s.send()).json.messageId as string;
    expect((await s.message(id)).json).toMatchObject({
      status: 'failed',
      error: 'no delivery channel is set for the company',
    });
  });

  it('channels set refuses plain http, private, link-local and credentialed URLs', async () => {
    const t = await createTenant();
    for (const url of [
      'http://example.com/hook',
      'https://10.0.0.8/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/hook',
      'https://user:pw@example.com/hook',
      'not a url',
    ]) {
      const res = await admin('channels', 'set', '--company', t.companyId, '--url', url);
      expect(res.code, url).toBe(2);
    }
    expect(
      (await admin('channels', 'set', '--company', t.companyId, '--url', 'https://example.com/h')).code,
    ).toBe(0);
    const get = await admin('channels', 'get', '--company', t.companyId, '--json');
    expect(JSON.parse(get.out)).toEqual({
      url: 'https://example.com/h',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      previousSecretExpiresAt: null,
    });
    expect(get.out).not.toContain('whsec_');
  });

  it('sending to an unknown contact stores nothing and starts nothing', async () => {
    const s = await setup('/ok');
    const before = received.length;
    expectProblem(
      await call('POST', '/v1/contacts/01nosuchcontact/send_message', {
        headers: s.headers,
        body: { type: 'text', body: { text: 'x' } },
      }),
      404,
      'not_found',
    );
    const count = await call('POST', '/v1/dynadata/type/messages/executeFunction/count', {
      headers: s.headers,
      body: {},
    });
    expect(count.json).toEqual({ count: 0, complete: true, cursor: null });
    expect(received.length).toBe(before);
  });
});
