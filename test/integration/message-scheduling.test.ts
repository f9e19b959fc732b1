import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readStackFile } from '../../functions/local/stack-file';
import { messageSendPayload } from '../../functions/shared/routes/event-payloads';
import { binaryFile, upload } from './storage-uploads';
import { call, createContact, createTenant, expectProblem, runAdmin } from './support';

/** The company's message channel: a receiver on loopback that records every delivery and accepts it. */
const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    received.push({ path: req.url ?? '/', headers: req.headers, body });
    res.writeHead(200).end();
  });
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const eventually = async <T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(200);
  }
};

const setup = async () => {
  const t = await createTenant();
  const headers = { 'x-api-key': t.apiKey };
  const path = `/channel-${t.companyId}`;
  const set = await runAdmin(
    'channels',
    'set',
    '--company',
    t.companyId,
    '--url',
    `${base}${path}`,
    '--json',
  );
  expect(set.code, set.err).toBe(0);
  const contactId = await createContact(headers, 'Ada');
  const send = (body: Record<string, unknown>) =>
    call('POST', `/v1/contacts/${contactId}/send_message`, { headers, body });
  const message = (id: string) => call('GET', `/v1/dynadata/type/messages/item/${id}`, { headers });
  const deliveriesOf = (id: string) => received.filter((r) => r.headers['webhook-id'] === `evt_${id}`);
  return { t, headers, send, message, deliveriesOf, contactId };
};

/** The message's one-time schedule in the local stack's scheduler (its Scheduler API on loopback). */
const schedule = (companyId: string, messageId: string, method: 'GET' | 'DELETE') => {
  const endpoint = readStackFile(inject('stack').dataDir)?.schedulerEndpoint;
  if (!endpoint) throw new Error('no scheduler endpoint in stack.json');
  return fetch(`${endpoint}/schedules/m-${companyId}-${messageId}?groupName=messages`, { method });
};

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

describe('scheduled messages', () => {
  it('stores a message with sendAt as scheduled and delivers it at its time, as an immediate send', async () => {
    const s = await setup();
    const sendAt = inSeconds(3);
    const sent = await s.send({ type: 'text', body: { text: 'Later' }, sendAt });
    expect(sent.status).toBe(202);
    expect(sent.json).toEqual({ messageId: expect.any(String), status: 'scheduled', sendAt });
    const id = sent.json.messageId as string;
    expect((await s.message(id)).json).toMatchObject({ status: 'scheduled', sendAt, attempts: 0 });
    expect(s.deliveriesOf(id)).toHaveLength(0);
    const done = await eventually(
      () => s.message(id),
      (r) => r.json.status === 'sent',
    );
    expect(done.json).toMatchObject({ status: 'sent', attempts: 1, sendAt });
    const [delivery] = s.deliveriesOf(id);
    expect(Date.parse(String(done.json.sentAt))).toBeGreaterThanOrEqual(Date.parse(sendAt));
    const envelope = JSON.parse(String(delivery?.body));
    expect(messageSendPayload().safeParse(envelope).error?.issues ?? []).toEqual([]);
    expect(envelope.data).toMatchObject({
      messageId: id,
      message: { type: 'text', body: { text: 'Later' } },
    });
  });

  it('never sends a canceled message, answers a repeated cancel with it, and refuses cancelling a sent one', async () => {
    const s = await setup();
    const sendAt = inSeconds(3);
    const id = (await s.send({ type: 'text', body: { text: 'Never' }, sendAt })).json.messageId as string;
    expect((await schedule(s.t.companyId, id, 'GET')).status).toBe(200);
    const canceled = await call('POST', `/v1/messages/${id}/cancel`, { headers: s.headers });
    expect(canceled.status).toBe(200);
    // Its schedule is deleted with it.
    expect((await schedule(s.t.companyId, id, 'GET')).status).toBe(404);
    expect(canceled.json.message).toMatchObject({ _id: id, status: 'canceled', sendAt });
    const again = await call('POST', `/v1/messages/${id}/cancel`, { headers: s.headers });
    expect(again.status).toBe(200);
    expect(again.json.message).toEqual(canceled.json.message);
    // Another company sees no such message.
    const other = await createTenant();
    expectProblem(
      await call('POST', `/v1/messages/${id}/cancel`, { headers: { 'x-api-key': other.apiKey } }),
      404,
      'not_found',
    );
    // Past its time (and past a release the schedule would make): still canceled, nothing sent.
    await sleep(6_000);
    const { releaseScheduledMessage } = await import('../../functions/shared/domain/messages/scheduled');
    expect(await releaseScheduledMessage(s.t.companyId, id, new Date())).toEqual({ released: false });
    expect((await s.message(id)).json).toMatchObject({ status: 'canceled', attempts: 0 });
    expect(s.deliveriesOf(id)).toHaveLength(0);

    // A message sent at once is past canceling.
    const now = (await s.send({ type: 'text', body: { text: 'Now' } })).json.messageId as string;
    await eventually(
      () => s.message(now),
      (r) => r.json.status === 'sent',
    );
    const refused = await call('POST', `/v1/messages/${now}/cancel`, { headers: s.headers });
    expectProblem(refused, 409, 'message_not_cancelable');
    expect(refused.json.messageStatus).toBe('sent');
  });

  it('refuses a sendAt in the past or more than 30 days ahead, with its pointer', async () => {
    const s = await setup();
    for (const sendAt of [inSeconds(-3600), inSeconds(31 * 24 * 3600)]) {
      const refused = await s.send({ type: 'text', body: { text: 'x' }, sendAt });
      expectProblem(refused, 400, 'send_at_out_of_range');
      expect(refused.json.errors).toEqual([{ pointer: '/body/sendAt', message: expect.any(String) }]);
    }
    const malformed = await s.send({ type: 'text', body: { text: 'x' }, sendAt: 'tomorrow' });
    expectProblem(malformed, 400, 'validation_failed');
    expect(JSON.stringify(malformed.json.errors)).toContain('/body/sendAt');
    // The contacts function takes the same body and refuses the same way.
    const viaFunction = await call(
      'POST',
      `/v1/dynadata/type/contacts/item/${s.contactId}/executeFunction/sendMessage`,
      { headers: s.headers, body: { type: 'text', body: { text: 'x' }, sendAt: inSeconds(-3600) } },
    );
    expectProblem(viaFunction, 400, 'send_at_out_of_range');
    const later = await call(
      'POST',
      `/v1/dynadata/type/contacts/item/${s.contactId}/executeFunction/sendMessage`,
      {
        headers: s.headers,
        body: { type: 'text', body: { text: 'x' }, sendAt: inSeconds(3600) },
      },
    );
    expect(later.json).toMatchObject({ status: 'scheduled' });
    // Up to a minute in the past (a caller's clock): sent at once.
    const soon = await s.send({ type: 'text', body: { text: 'x' }, sendAt: inSeconds(-5) });
    expect(soon.status).toBe(202);
    expect(soon.json.status).toBe('queued');
  });

  it('sends a scheduled message whose schedule was lost, once its time has passed', async () => {
    const s = await setup();
    const sendAt = inSeconds(3);
    const id = (await s.send({ type: 'text', body: { text: 'Lost' }, sendAt })).json.messageId as string;
    // The schedule is gone (a crash before it fired, a failed creation): the sweep finds the message by time.
    expect((await schedule(s.t.companyId, id, 'GET')).status).toBe(200);
    expect((await schedule(s.t.companyId, id, 'DELETE')).status).toBe(200);
    await sleep(Math.max(0, Date.parse(sendAt) - Date.now()) + 1_500);
    expect((await s.message(id)).json.status).toBe('scheduled');
    const { releaseDueScheduledMessages } = await import('../../functions/shared/domain/messages/scheduled');
    const counts = await releaseDueScheduledMessages(new Date(), { lateByMs: 0 });
    expect(counts.released).toBeGreaterThanOrEqual(1);
    const done = await eventually(
      () => s.message(id),
      (r) => r.json.status === 'sent',
    );
    expect(done.json.status).toBe('sent');
    expect(s.deliveriesOf(id)).toHaveLength(1);
  });
});

describe('file messages on the channel', () => {
  it('carry a signed download URL of the file beside its reference', async () => {
    const s = await setup();
    const bytes = binaryFile(2048);
    const file = await upload(s.t, bytes, 'image/png');
    const sent = await s.send({
      type: 'image',
      body: { file: { fullPath: file.fullPath }, caption: 'Look' },
    });
    expect(sent.status).toBe(202);
    const id = sent.json.messageId as string;
    await eventually(
      () => s.message(id),
      (r) => r.json.status === 'sent',
    );
    const envelope = JSON.parse(String(s.deliveriesOf(id)[0]?.body));
    expect(messageSendPayload().safeParse(envelope).error?.issues ?? []).toEqual([]);
    const sentFile = envelope.data.message.body.file;
    expect(sentFile).toMatchObject({ bucket: file.bucket, fullPath: file.fullPath, url: expect.any(String) });
    const lifetime = Date.parse(sentFile.urlExpiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
    const download = await fetch(sentFile.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    // The stored message keeps the bare reference: the URL exists only in the delivery.
    expect((await s.message(id)).json.body).toEqual({ file: { fullPath: file.fullPath }, caption: 'Look' });
  });
});
