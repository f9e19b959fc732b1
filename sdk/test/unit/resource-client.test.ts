import { describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import type { DynadataItem, TranscodeJob } from '../../src/resources.js';
import { stubClient } from './stub-client.js';

/**
 * The resource methods with a stubbed `fetch`: where each argument goes (path, body, query, headers), the
 * typed answer, the thrown `ApiError` with the operation's codes, paged lists and their iterator.
 */
const job = (status: string) => ({ id: 'tc_1', status, preset: 'wav' });

describe('the resource methods', () => {
  it('put path parameters first, then the body, then the options', async () => {
    const { client, sent } = stubClient(() => ({ status: 201, body: { _id: 'i1' } }));
    const created = await client.dynadata
      .items('orders')
      .create({ name: 'Ada' }, { idempotencyKey: 'order-42' });
    expectTypeOf(created).toEqualTypeOf<DynadataItem>();
    const [request] = sent;
    expect([request?.method, request?.path, JSON.parse(request?.body ?? '')]).toEqual([
      'POST',
      '/v1/dynadata/type/orders/create',
      { name: 'Ada' },
    ]);
    expect(request?.headers.get('idempotency-key')).toBe('order-42');
    expect(request?.headers.get('x-api-key')).toBe('sk-test');
  });

  it('give a keyed POST a fresh key, and take several path parameters in path order', async () => {
    const { client, sent } = stubClient(() => ({ body: { run: { runId: 'r1', status: 'canceled' } } }));
    await client.workflows.runs.cancel('wf_1', 'r1');
    expect(sent[0]?.path).toBe('/v1/workflows/wf_1/runs/r1/cancel');
    expect(sent[0]?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('send the query of an operation without a body, and typed header parameters', async () => {
    const { client, sent } = stubClient(() => ({ body: { jobs: [], nextCursor: null } }));
    await client.transcodes.list({ limit: 2 });
    await client.webhooks.update('we_1', { enabled: false }, { headers: { 'If-Match': '"3"' } });
    await client.storage.files.delete({ fullPath: 'companies/c/uploads/x/a.txt' });
    expect(sent.map((s) => `${s.method} ${s.path}${s.query}`)).toEqual([
      'GET /v1/transcodes?limit=2',
      'PATCH /v1/webhooks/we_1',
      'DELETE /v1/storage/files?fullPath=companies%2Fc%2Fuploads%2Fx%2Fa.txt',
    ]);
    expect(sent[1]?.headers.get('if-match')).toBe('"3"');
    expect(JSON.parse(sent[1]?.body ?? '')).toEqual({ enabled: false });
  });

  it('answer the typed success body', async () => {
    const { client } = stubClient((s) =>
      s.method === 'DELETE' ? { body: { deleted: true, id: 'wf_1' } } : { body: { job: job('done') } },
    );
    const read = await client.transcodes.get('tc_1');
    expectTypeOf(read.job).toEqualTypeOf<TranscodeJob>();
    expect(read.job.status).toBe('done');
    const deleted = await client.workflows.delete('wf_1');
    expectTypeOf(deleted).toEqualTypeOf<{ deleted: true; id: string }>();
    expect(deleted).toEqual({ deleted: true, id: 'wf_1' });
  });

  it('check their arguments at compile time', () => {
    const { client } = stubClient();
    const calls = () => [
      // @ts-expect-error the body of a create is required
      client.transcodes.create(),
      // @ts-expect-error `preset` is one of the document's presets
      client.transcodes.create({ fullPath: 'x', preset: 'gif' }),
      // @ts-expect-error the run's id is a second argument
      client.workflows.runs.get('wf_1'),
      // @ts-expect-error a GET takes no idempotency key
      client.transcodes.get('tc_1', { idempotencyKey: 'k' }),
    ];
    expect(typeof calls).toBe('function');
  });

  it('throw an ApiError whose code is typed by the operation', async () => {
    const problem = { code: 'transcode_job_not_cancelable', status: 409, requestId: 'req-1', detail: 'done' };
    const { client } = stubClient(() => ({ status: 409, body: problem }));
    const error = await client.transcodes.cancel('tc_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    if (!client.transcodes.cancel.isError(error)) throw new Error('not the operation error');
    expect([error.status, error.code, error.requestId, error.body]).toEqual([
      409,
      'transcode_job_not_cancelable',
      'req-1',
      problem,
    ]);
    expectTypeOf<'transcode_job_not_cancelable'>().toExtend<NonNullable<typeof error.code>>();
    expectTypeOf<'quota_exceeded_typo'>().not.toExtend<NonNullable<typeof error.code>>();
    expect(client.transcodes.get.isError(error)).toBe(false);
  });

  it('answer one page, and iterate every element with .all()', async () => {
    const { client, sent } = stubClient((s) =>
      s.body.includes('"cursor":"p2"')
        ? { body: { items: [{ _id: 'c' }], nextCursor: null } }
        : { body: { items: [{ _id: 'a' }, { _id: 'b' }], nextCursor: 'p2' } },
    );
    const page = await client.dynadata.items('orders').list({ limit: 2 });
    expect(page.items.map((i) => i._id)).toEqual(['a', 'b']);
    const all: string[] = [];
    for await (const item of client.dynadata.items('orders').list.all({ limit: 2 })) {
      expectTypeOf(item).toEqualTypeOf<DynadataItem>();
      all.push(item._id);
    }
    expect(all).toEqual(['a', 'b', 'c']);
    expect(sent.map((s) => `${s.method} ${s.path} ${s.body}`)).toEqual([
      'POST /v1/dynadata/type/orders/list {"limit":2}',
      'POST /v1/dynadata/type/orders/list {"limit":2}',
      'POST /v1/dynadata/type/orders/list {"limit":2,"cursor":"p2"}',
    ]);
  });

  it('keep the path client beside them', async () => {
    const { client, sent } = stubClient(() => ({ body: { company: { id: 'co_1' } } }));
    const { data } = await client.api.GET('/v1/self');
    expect(data?.company.id).toBe('co_1');
    expect(sent[0]?.path).toBe('/v1/self');
  });
});
