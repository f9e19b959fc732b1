import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';
import { eventually, startReceiver, verifySignature } from './webhook-receiver';

/**
 * `/v1/messaging/channel`: a company sets, changes, rotates and removes the webhook its messages are delivered
 * to, through the API alone; every delivery verifies with the secret shown once, and during a rotation's
 * overlap with either secret.
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const as = (apiKey: string, more: Record<string, string> = {}) => ({ 'x-api-key': apiKey, ...more });

/** Sends one message to a new contact and answers the delivery the receiver got for it. */
const sendAndReceive = async (apiKey: string, path: string) => {
  const contact = await call('POST', '/v1/dynadata/type/contacts/create', {
    headers: as(apiKey),
    body: { name: 'Grace' },
  });
  const sent = await call('POST', `/v1/contacts/${contact.json._id}/send_message`, {
    headers: as(apiKey),
    body: { type: 'text', body: { text: 'Hello Grace' } },
  });
  expect(sent.status).toBe(202);
  const id = `evt_${sent.json.messageId as string}`;
  const found = await eventually(
    () => receiver.of(path).find((r) => r.headers['webhook-id'] === id),
    (r) => r !== undefined,
  );
  if (!found) throw new Error(`no delivery of ${id}`);
  return found;
};

describe('the message channel through the API', () => {
  it('is set once with its secret, delivers messages that verify, and keeps the secret when the URL changes', async () => {
    const t = await createTenant();
    expectProblem(await call('GET', '/v1/messaging/channel', { headers: as(t.apiKey) }), 404, 'not_found');
    const created = await call('PUT', '/v1/messaging/channel', {
      headers: as(t.apiKey),
      body: { url: `${receiver.base}/first` },
    });
    expect(created.status).toBe(201);
    const secret = created.json.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(created.json.channel).toMatchObject({
      url: `${receiver.base}/first`,
      previousSecretExpiresAt: null,
    });

    const delivery = await sendAndReceive(t.apiKey, '/first');
    expect(verifySignature(secret, delivery)).toBe(true);
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(1);

    const read = await call('GET', '/v1/messaging/channel', { headers: as(t.apiKey) });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.json)).not.toContain('whsec_');
    const etag = read.headers.get('etag') as string;
    const moved = await call('PUT', '/v1/messaging/channel', {
      headers: as(t.apiKey, { 'if-match': etag }),
      body: { url: `${receiver.base}/second` },
    });
    expect(moved.status).toBe(200);
    expect(moved.json.secret).toBeNull();
    expectProblem(
      await call('PUT', '/v1/messaging/channel', {
        headers: as(t.apiKey, { 'if-match': etag }),
        body: { url: `${receiver.base}/third` },
      }),
      412,
      'precondition_failed',
    );
    expect(verifySignature(secret, await sendAndReceive(t.apiKey, '/second'))).toBe(true);
  });

  it('signs with both secrets during a rotation’s overlap, then with the new one alone', async () => {
    const t = await createTenant();
    const first = (
      await call('PUT', '/v1/messaging/channel', {
        headers: as(t.apiKey),
        body: { url: `${receiver.base}/rot` },
      })
    ).json.secret as string;
    const rotated = await call('POST', '/v1/messaging/channel/rotate-secret', {
      headers: as(t.apiKey),
      body: { overlapSeconds: 600 },
    });
    expect(rotated.status).toBe(200);
    const second = rotated.json.secret as string;
    expect(second).not.toBe(first);
    expect(rotated.json.previousSecretExpiresAt).toEqual(expect.any(String));
    const during = await sendAndReceive(t.apiKey, '/rot');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifySignature(first, during)).toBe(true);
    expect(verifySignature(second, during)).toBe(true);

    const third = (
      await call('POST', '/v1/messaging/channel/rotate-secret', {
        headers: as(t.apiKey),
        body: { overlapSeconds: 0 },
      })
    ).json.secret as string;
    const after = await sendAndReceive(t.apiKey, '/rot');
    expect(verifySignature(third, after)).toBe(true);
    expect(verifySignature(second, after)).toBe(false);
    expect(verifySignature(first, after)).toBe(false);
  });

  it('refuses a URL it would not deliver to, and a key without the webhook scopes', async () => {
    const t = await createTenant();
    const bad = await call('PUT', '/v1/messaging/channel', {
      headers: as(t.apiKey),
      body: { url: 'https://user:pw@example.com/hook' },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.json.errors).toEqual([expect.objectContaining({ pointer: '/body/url' })]);
    const reader = await createTenant({ scopes: ['webhooks:read'] });
    expectProblem(
      await call('PUT', '/v1/messaging/channel', {
        headers: as(reader.apiKey),
        body: { url: `${receiver.base}/x` },
      }),
      403,
      'insufficient_scope',
    );
  });

  it('is removed: messages then fail, and another company never sees or changes it', async () => {
    const t = await createTenant();
    const other = await createTenant();
    await call('PUT', '/v1/messaging/channel', {
      headers: as(t.apiKey),
      body: { url: `${receiver.base}/gone` },
    });
    expectProblem(
      await call('GET', '/v1/messaging/channel', { headers: as(other.apiKey) }),
      404,
      'not_found',
    );
    expectProblem(
      await call('DELETE', '/v1/messaging/channel', { headers: as(other.apiKey) }),
      404,
      'not_found',
    );
    expect((await call('GET', '/v1/messaging/channel', { headers: as(t.apiKey) })).status).toBe(200);
    const removed = await call('DELETE', '/v1/messaging/channel', { headers: as(t.apiKey) });
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ deleted: true });
    expectProblem(await call('GET', '/v1/messaging/channel', { headers: as(t.apiKey) }), 404, 'not_found');
    expectProblem(
      await call('POST', '/v1/messaging/channel/rotate-secret', { headers: as(t.apiKey), body: {} }),
      404,
      'not_found',
    );
  });
});
