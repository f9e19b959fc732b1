import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_CACHE_TTL_SECONDS } from './local-stack-process';
import { binaryFile, type PartUrl, partBytes, partUrls, sha256, uploadAllParts } from './storage-uploads';
import { call, expectProblem, runAdmin } from './support';
import { eventually, startReceiver, verifySignature } from './webhook-receiver';

/**
 * A company runs itself through the API: created by the operator with a single admin key, it does everything
 * else over HTTP, one step after another, as an integrator would: restricted keys, its message channel,
 * webhook endpoints, files and usage. A second company made the same way never sees any of it.
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let receiver: Receiver;

/** A company and its one admin key, made by the operator's CLI only. */
const operatorCompany = async (name: string) => {
  const company = await runAdmin('companies', 'create', '--name', name, '--plan', 'starter', '--json');
  expect(company.code, company.err).toBe(0);
  const companyId = (JSON.parse(company.out) as { id?: string; companyId?: string }).companyId as string;
  const key = await runAdmin('keys', 'create', '--company', companyId, '--name', 'admin', '--json');
  expect(key.code, key.err).toBe(0);
  return { companyId, apiKey: (JSON.parse(key.out) as { key: string }).key };
};

let acme: Awaited<ReturnType<typeof operatorCompany>>;
let rival: Awaited<ReturnType<typeof operatorCompany>>;
const as = (apiKey: string, more: Record<string, string> = {}) => ({ 'x-api-key': apiKey, ...more });
const api = (method: string, path: string, body?: unknown, more: Record<string, string> = {}) =>
  call(method, path, { headers: as(acme.apiKey, more), ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  receiver = await startReceiver();
  acme = await operatorCompany('Acme Self Service');
  rival = await operatorCompany('Rival Self Service');
});
afterAll(() => receiver.close());

describe('a company that runs itself through the API', () => {
  it('manages its keys: a restricted key is refused outside its scopes and, revoked, refused entirely', async () => {
    const made = await api('POST', '/v1/keys', { name: 'usage reader', scopes: ['usage:read'] });
    expect(made.status).toBe(201);
    const { key, secret } = made.json as { key: { id: string }; secret: string };
    expect((await call('GET', '/v1/usage', { headers: as(secret) })).status).toBe(200);
    expectProblem(await call('GET', '/v1/keys', { headers: as(secret) }), 403, 'insufficient_scope');
    expectProblem(await call('GET', `/v1/keys/${key.id}`, { headers: as(rival.apiKey) }), 404, 'not_found');
    expect((await api('DELETE', `/v1/keys/${key.id}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, AUTHORIZER_CACHE_TTL_SECONDS * 1000 + 300));
    expect((await call('GET', '/v1/usage', { headers: as(secret) })).status).toBe(401);
  });

  it('defines a type, writes items, makes an additive change and is refused a breaking one with the count', async () => {
    const schema = (extra: Record<string, unknown>, required: string[] = ['sku']) => ({
      schema: {
        type: 'object',
        properties: { sku: { type: 'string' }, stock: { type: 'number' }, ...extra },
        required,
      },
    });
    expect((await api('PUT', '/v1/dynadata/types/products', schema({}))).status).toBe(201);
    for (const [sku, stock] of [
      ['a-1', 3],
      ['b-2', 30],
    ] as const)
      expect((await api('POST', '/v1/dynadata/type/products/create', { sku, stock })).status).toBe(201);
    const additive = await api('PUT', '/v1/dynadata/types/products', schema({ colour: { type: 'string' } }));
    expect(additive.status).toBe(200);
    const breaking = await api(
      'PUT',
      '/v1/dynadata/types/products',
      schema({ colour: { type: 'string' } }, ['sku', 'colour']),
    );
    expectProblem(breaking, 409, 'type_change_breaks_items');
    expect(breaking.json).toMatchObject({ breakingItems: 2 });
    expectProblem(
      await call('GET', '/v1/dynadata/types/products', { headers: as(rival.apiKey) }),
      404,
      'not_found',
    );
  });

  it('sets its message channel and sends a message the channel receives and verifies', async () => {
    const channel = await api('PUT', '/v1/messaging/channel', { url: `${receiver.base}/messages` });
    expect(channel.status).toBe(201);
    const contact = await api('POST', '/v1/dynadata/type/contacts/create', { name: 'Ada' });
    const sent = await api('POST', `/v1/contacts/${contact.json._id}/send_message`, {
      type: 'text',
      body: { text: 'Your order shipped' },
    });
    expect(sent.status).toBe(202);
    const delivery = await eventually(
      () => receiver.of('/messages').find((r) => r.json.data?.messageId === sent.json.messageId),
      (r) => r !== undefined,
    );
    expect(delivery && verifySignature(channel.json.secret as string, delivery)).toBe(true);
    expectProblem(
      await call('GET', '/v1/messaging/channel', { headers: as(rival.apiKey) }),
      404,
      'not_found',
    );
  });

  it('creates, changes and rotates a webhook endpoint, reads its log and redelivers an event', async () => {
    const created = await api('POST', '/v1/webhooks', { url: `${receiver.base}/events`, events: ['*'] });
    expect(created.status).toBe(201);
    const id = (created.json.endpoint as { id: string }).id;
    const first = created.json.secret as string;
    const read = await api('GET', `/v1/webhooks/${id}`);
    const changed = await api(
      'PATCH',
      `/v1/webhooks/${id}`,
      { description: 'order events' },
      { 'if-match': read.headers.get('etag') as string },
    );
    expect(changed.status).toBe(200);
    const rotated = await api('POST', `/v1/webhooks/${id}/rotate-secret`, { overlapSeconds: 600 });
    const second = rotated.json.secret as string;
    const ping = await api('POST', `/v1/webhooks/${id}/test`);
    const eventId = (ping.json.event as { id: string }).id;
    const during = await eventually(
      () => receiver.of('/events').find((r) => r.headers['webhook-id'] === eventId),
      (r) => r !== undefined,
    );
    if (!during) throw new Error('the ping never arrived');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifySignature(first, during) && verifySignature(second, during)).toBe(true);

    const log = await eventually(
      () => api('GET', `/v1/webhooks/${id}/deliveries`),
      (r) =>
        (r.json.deliveries as { eventId: string; status: string }[]).some(
          (d) => d.eventId === eventId && d.status === 'delivered',
        ),
    );
    expect(log.json.deliveries).toEqual(
      expect.arrayContaining([expect.objectContaining({ eventId, status: 'delivered', attempts: 1 })]),
    );
    expect((await api('POST', `/v1/events/${eventId}/redeliver`, { endpointId: id })).status).toBe(202);
    const again = await eventually(
      () => receiver.of('/events').filter((r) => r.headers['webhook-id'] === eventId),
      (r) => r.length === 2,
    );
    expect(again).toHaveLength(2);
    expectProblem(
      await call('GET', `/v1/webhooks/${id}/deliveries`, { headers: as(rival.apiKey) }),
      404,
      'not_found',
    );
  });

  it('uploads checksummed files, one in parts, lists, refuses wrong bytes, deletes and sees storageBytes fall', async () => {
    const storageBytes = async () =>
      ((await api('GET', '/v1/usage')).json.usage as { storageBytes: number }).storageBytes;
    const before = await storageBytes();
    const bytes = binaryFile(64 * 1024);
    const reservation = {
      fileName: 'catalogue.bin',
      contentType: 'application/octet-stream',
      size: bytes.length,
      checksumSha256: sha256(bytes),
    };
    const answer = (await api('POST', '/v1/storage/upload-url', reservation)).json as {
      uploadUrl: string;
      method: string;
      headers: Record<string, string>;
      fullPath: string;
    };
    const tampered = Uint8Array.from(bytes);
    tampered[0] = (tampered[0] ?? 0) ^ 0xff;
    const put = (body: Uint8Array) =>
      fetch(answer.uploadUrl, { method: answer.method, headers: answer.headers, body });
    expect((await put(tampered)).status).toBe(400);
    expect((await put(bytes)).status).toBe(200);
    const done = await api('POST', '/v1/storage/upload-complete', { fullPath: answer.fullPath });
    expect(done.json.checksumSha256).toBe(reservation.checksumSha256);
    expect(await storageBytes()).toBe(before + bytes.length);
    const listed = await api('GET', '/v1/storage/files');
    expect((listed.json.files as { fullPath: string }[]).map((f) => f.fullPath)).toContain(answer.fullPath);
    const reference = `fullPath=${encodeURIComponent(answer.fullPath)}`;
    expectProblem(
      await call('DELETE', `/v1/storage/files?${reference}`, { headers: as(rival.apiKey) }),
      404,
      'not_found',
    );
    expect((await api('DELETE', `/v1/storage/files?${reference}`)).status).toBe(200);
    expect(await storageBytes()).toBe(before);

    // A large file in parts with checksums: three of the 5 MiB minimum and a short last one.
    const part = 5 * 1024 * 1024;
    const large = binaryFile(3 * part + 4096);
    const tenant = { companyId: acme.companyId, keyId: '', apiKey: acme.apiKey };
    const { answer: upload, parts } = await uploadAllParts(tenant, large, part, { checksums: true });
    expect(parts).toHaveLength(4);
    // Bytes other than those a part's checksum names are refused, and the part stored stays as it was.
    const resent = await partUrls(tenant, upload.id, [
      { partNumber: 4, checksumSha256: sha256(partBytes(large, part, 4)) },
    ]);
    const [last] = resent.json.parts as PartUrl[];
    const wrong = Uint8Array.from(partBytes(large, part, 4));
    wrong[0] = (wrong[0] ?? 0) ^ 0xff;
    expect(
      (await fetch(String(last?.url), { method: 'PUT', headers: last?.headers, body: wrong })).status,
    ).toBe(400);
    const completed = await api('POST', `/v1/storage/multipart-uploads/${upload.id}/complete`, { parts });
    expect(completed.status).toBe(200);
    expect(completed.json).toMatchObject({
      checksumType: 'COMPOSITE',
      checksumSha256: expect.stringMatching(/-4$/),
    });
    expect(await storageBytes()).toBe(before + large.length);
    const largeReference = `fullPath=${encodeURIComponent(upload.fullPath)}`;
    expect((await api('DELETE', `/v1/storage/files?${largeReference}`)).status).toBe(200);
    expect(await storageBytes()).toBe(before);
  });

  it('reads a 31-day usage series and raises its own threshold event', async () => {
    const { addToMeter } = await import('../../functions/shared/data/usage-meters');
    // The test's clock: one speech character a day through October 2025, written by the meter itself.
    for (let day = 1; day <= 31; day += 1)
      await addToMeter(acme.companyId, 'speech_characters', 1, new Date(Date.UTC(2025, 9, day, 12)));
    const series = await api('GET', '/v1/usage/history?from=2025-10-01&to=2025-10-31');
    const points = series.json.points as { meters: { speech_characters: number } }[];
    expect(points.map((p) => p.meters.speech_characters)).toEqual(Array(31).fill(1));
    const rivalSeries = await call('GET', '/v1/usage/history?from=2025-10-01&to=2025-10-31', {
      headers: as(rival.apiKey),
    });
    expect(
      (rivalSeries.json.points as { meters: { speech_characters: number } }[]).every(
        (p) => p.meters.speech_characters === 0,
      ),
    ).toBe(true);

    // Its own threshold, 1 % of the month's speech characters, crossed by this month's use.
    expect((await api('PUT', '/v1/usage/alerts', { thresholds: { speech_characters: [1] } })).status).toBe(
      200,
    );
    await addToMeter(acme.companyId, 'speech_characters', 10_000, new Date());
    const events = await eventually(
      () => api('GET', '/v1/events?type=usage.threshold_reached'),
      (r) =>
        (r.json.events as { data: { meter: string; threshold: number } }[]).some(
          (e) => e.data.meter === 'speech_characters' && e.data.threshold === 1,
        ),
    );
    expect(events.json.events).toEqual(
      expect.arrayContaining([expect.objectContaining({ data: expect.objectContaining({ threshold: 1 }) })]),
    );
  });
});
