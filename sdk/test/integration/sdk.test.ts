import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, createTenant } from '../../../test/integration/support';
import { RECORDINGS } from '../../../test/integration/transcription-support';
import { eventually, startReceiver } from '../../../test/integration/webhook-receiver';
import {
  type ApiClient,
  ApiError,
  type Client,
  createApiClient,
  createClient,
  type DynadataItem,
  verifyWebhook,
} from '../../src/index.js';

/**
 * The SDK against the local stack. The path client: an API key client, Dynadata items created and read back
 * page after page by the iterator, a POST whose answer is lost retried with its idempotency key (the API
 * answers the first answer again instead of creating a second item), and a real signed webhook delivery
 * verified. The resource client, area by area: Dynadata items paged, a recording uploaded with
 * `storage.upload`, a transcode, a transcription, a speech job and an async workflow run each awaited with
 * its waiter, a webhook delivery verified, usage read and events iterated. And conditional writes that name
 * the `ETag` the previous write answered.
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

describe('the resource client against the local stack', () => {
  let sdk: Client;
  let companyId: string;

  beforeAll(async () => {
    const starter = await createTenant({ plan: 'starter' });
    companyId = starter.companyId;
    sdk = createClient({ baseUrl: apiUrl, credential: { apiKey: starter.apiKey } });
  });

  /** Fast polling: the local jobs take seconds. */
  const wait = { timeoutMs: 120_000, initialDelayMs: 250, maxDelayMs: 1_000 };

  it('creates, reads and pages Dynadata items, and throws the typed problem of a missing one', async () => {
    const contacts = sdk.dynadata.items('contacts');
    const created = await Promise.all(
      Array.from({ length: 5 }, (_, i) => contacts.create({ name: `SDK ${i}` })),
    );
    const first = await contacts.list({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const all: DynadataItem[] = [];
    for await (const item of contacts.list.all({ limit: 2 })) all.push(item);
    expect(all.map((item) => item._id).sort()).toEqual(created.map((item) => item._id).sort());
    const [one] = created;
    expect((await contacts.get(one?._id ?? '')).name).toBe(one?.name);

    const error = await contacts.get('01jd3xq0a6m5r6y1z8k7w2v4bn').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    if (!contacts.get.isError(error)) throw error;
    expect([error.status, error.code, error.requestId]).toEqual([404, 'not_found', expect.any(String)]);
  });

  it('uploads a recording, then transcodes and transcribes it, each job awaited to its end', async () => {
    const wav = readFileSync(RECORDINGS.dashwood.file);
    const stored = await sdk.storage.upload(wav, {
      contentType: 'audio/wav',
      name: 'dashwood.wav',
      checksum: true,
    });
    expect(stored).toMatchObject({ size: wav.length, contentType: 'audio/wav', checksumType: 'FULL_OBJECT' });
    expect(stored.fullPath).toMatch(new RegExp(`^companies/${companyId}/.*dashwood\\.wav$`));
    const files = await sdk.storage.files.list({ prefix: `companies/${companyId}/` });
    expect(files.files.map((f) => f.fullPath)).toContain(stored.fullPath);

    const source = { bucket: stored.bucket, fullPath: stored.fullPath };
    const [transcode, transcription] = await Promise.all([
      sdk.transcodes.create({ ...source, preset: 'flac_16k_mono' }),
      sdk.transcriptions.create({ ...source, language: 'en-US' }),
    ]);
    const [converted, transcribed] = await Promise.all([
      sdk.transcodes.waitUntilDone(transcode.job.id, wait),
      sdk.transcriptions.waitUntilDone(transcription.job.id, wait),
    ]);
    expect(converted).toMatchObject({ status: 'done', error: null });
    expect(transcribed).toMatchObject({ status: 'done', error: null });
    expect(transcribed.result?.text).toContain('consider');
  }, 150_000);

  it('uploads a larger body as a multipart upload, its parts checked by their checksums', async () => {
    const content = new Uint8Array(5 * 1024 * 1024 + 1000).map((_, i) => i % 251);
    const stored = await sdk.storage.upload(new Blob([content]), {
      contentType: 'application/octet-stream',
      name: 'parts.bin',
      multipartThresholdBytes: 1024 * 1024,
      partSize: 5 * 1024 * 1024,
      checksum: true,
    });
    expect(stored).toMatchObject({ size: content.length, checksumType: 'COMPOSITE' });
    expect(stored.checksumSha256).toMatch(/-2$/);
  });

  it('synthesizes a speech job and awaits it', async () => {
    const { job } = await sdk.speech.jobs.create({ text: 'Hello from the resource client.', format: 'mp3' });
    const done = await sdk.speech.jobs.waitUntilDone(job.id, wait);
    expect(done).toMatchObject({ id: job.id, status: 'done', error: null });
    expect(done.result?.audio.fullPath).toEqual(expect.any(String));
  }, 150_000);

  it('runs a workflow asynchronously and awaits its run', async () => {
    await sdk.workflows.put('sdk-flow', {
      id: 'sdk-flow',
      name: 'SDK flow',
      input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      steps: [
        {
          id: 'save',
          action: 'actions/dynadata/create',
          with: { type: 'contacts', item: { name: '{{ input.name }}' } },
        },
      ],
      return: { id: '{{ steps.save.output._id }}' },
    });
    const started = await sdk.workflows.run('sdk-flow', { mode: 'async', input: { name: 'From a run' } });
    if (!('runId' in started)) throw new Error('the run did not go asynchronous');
    const run = await sdk.workflows.runs.waitUntilDone('sdk-flow', started.runId, wait);
    expect(run, JSON.stringify(run.logs)).toMatchObject({
      runId: started.runId,
      status: 'success',
      ok: true,
    });
    const { id } = run.result as { id: string };
    expect((await sdk.dynadata.items('contacts').get(id)).name).toBe('From a run');
  }, 150_000);

  it('verifies a webhook delivery, reads usage and iterates events', async () => {
    const { endpoint, secret } = await sdk.webhooks.create({
      url: `${receiver.base}/resources`,
      events: ['*'],
    });
    const tested = await sdk.webhooks.test(endpoint.id);
    const [delivery] = await eventually(
      () => receiver.of('/resources'),
      (r) => r.length >= 1,
    );
    const event = verifyWebhook(secret ?? '', delivery?.body ?? '', delivery?.headers ?? {});
    expect([event.id, event.type]).toEqual([tested.event.id, 'ping']);

    const { usage } = await sdk.usage.get();
    expect(usage.meters.api_requests).toBeGreaterThan(0);

    const ids: string[] = [];
    for await (const one of sdk.events.list.all({ type: 'ping', limit: 1 })) ids.push(one.id);
    expect(ids).toEqual([tested.event.id]);
  });
});
