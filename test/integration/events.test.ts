import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS } from '../../functions/shared/routes/event-payloads';
import { call, createTenant, runAdmin } from './support';
import * as transcodes from './transcode-support';
import * as transcriptions from './transcription-support';
import { eventually, type Received, startReceiver, verifySignature } from './webhook-receiver';
import { getRun, runWorkflow, savedWorkflow } from './workflow-support';

/**
 * Every event type is delivered once, signed, after the change that caused it, with the resource as its GET
 * route shows it; a resource's events arrive in order under a slow receiver; a consumer that was down
 * catches up from GET /v1/events.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const subscribe = async (
  plan = 'starter',
  events: string[] = ['*'],
  limits?: Parameters<typeof transcodes.overrideLimits>[1],
) => {
  const t = await createTenant({ plan });
  // Before the company's first metered request: the dispatcher keeps a company's limits a minute once it has
  // read them for a usage change (`usage-thresholds.ts`).
  if (limits) await transcodes.overrideLimits(t.companyId, limits);
  const headers = { 'x-api-key': t.apiKey };
  const path = `/ev-${Math.random().toString(36).slice(2)}`;
  const created = await call('POST', '/v1/webhooks', {
    headers,
    body: { url: `${receiver.base}${path}`, events },
  });
  expect(created.status).toBe(201);
  return { ...t, headers, path, secret: created.json.secret as string };
};

type Sub = Awaited<ReturnType<typeof subscribe>>;

/** Waits for the event of `type` about `resourceId`, then checks it came once and signed. */
const deliveredOnce = async (sub: Sub, type: string, resourceId: string): Promise<Received> => {
  const match = (r: Received) =>
    r.json.type === type && (r.json.data.id ?? r.json.data._id ?? r.json.data.runId) === resourceId;
  const got = await eventually(
    () => receiver.of(sub.path).filter(match),
    (r) => r.length > 0,
    60_000,
  );
  expect(got.length, `${type} for ${resourceId}`).toBeGreaterThan(0);
  const first = got[0] as Received;
  // Whatever the stream redelivers, the event is sent once: give a repeat time to show up.
  const detail = await eventually(
    () => call('GET', `/v1/events/${first.json.id}`, { headers: sub.headers }),
    (r) => (r.json.event as { deliveries: { status: string }[] }).deliveries[0]?.status === 'delivered',
  );
  expect((detail.json.event as { deliveries: unknown[] }).deliveries).toHaveLength(1);
  expect(receiver.of(sub.path).filter((r) => r.headers['webhook-id'] === first.json.id)).toHaveLength(1);
  expect(verifySignature(sub.secret, first)).toBe(true);
  expect(first.headers['webhook-id']).toBe(first.json.id);
  const { deliveries: _d, ...event } = detail.json.event as Record<string, unknown>;
  expect(event).toEqual(first.json);
  // The payload is the one the OpenAPI document declares for its type (`#/components/schemas/<Type>Event`).
  const declared = EVENT_PAYLOADS()[type as keyof ReturnType<typeof EVENT_PAYLOADS>].safeParse(first.json);
  expect(declared.error?.issues ?? [], type).toEqual([]);
  return first;
};

describe('events of jobs', () => {
  it('transcode.done carries the job as GET /v1/transcodes/{id} shows it, after the move', async () => {
    const sub = await subscribe();
    const source = await transcodes.storeSource(sub.companyId, 'tone', { seconds: 2 });
    const res = await call('POST', '/v1/transcodes', {
      headers: sub.headers,
      body: { ...source, preset: 'wav' },
    });
    const job = await transcodes.waitForJob(sub.apiKey, (res.json.job as { id: string }).id);
    expect(job.status).toBe('done');
    const got = await deliveredOnce(sub, 'transcode.done', job.id);
    expect(got.json.data).toEqual(
      (await call('GET', `/v1/transcodes/${job.id}`, { headers: sub.headers })).json.job,
    );
    expect(got.at).toBeGreaterThanOrEqual(Date.parse(job.finishedAt as string));
  });

  it('transcode.failed and transcode.canceled', async () => {
    const sub = await subscribe('starter', ['transcode.failed', 'transcode.canceled']);
    const corrupt = await transcodes.storeSource(sub.companyId, 'corrupt');
    const failing = await call('POST', '/v1/transcodes', {
      headers: sub.headers,
      body: { ...corrupt, preset: 'wav' },
    });
    const failed = await transcodes.waitForJob(sub.apiKey, (failing.json.job as { id: string }).id);
    expect(failed.status).toBe('failed');
    expect((await deliveredOnce(sub, 'transcode.failed', failed.id)).json.data).toMatchObject({
      status: 'failed',
      error: { code: 'source_unreadable' },
    });
    const tone = await transcodes.storeSource(sub.companyId, 'tone', { seconds: 30 });
    const started = await call('POST', '/v1/transcodes', {
      headers: sub.headers,
      body: { ...tone, preset: 'wav' },
    });
    const id = (started.json.job as { id: string }).id;
    const canceled = await call('POST', `/v1/transcodes/${id}/cancel`, { headers: sub.headers });
    expect(canceled.status).toBe(200);
    expect((await deliveredOnce(sub, 'transcode.canceled', id)).json.data).toEqual(canceled.json.job);
  });

  it('transcription.done and transcription.failed', async () => {
    const sub = await subscribe();
    const speech = await transcriptions.storeSource(sub.companyId, 'dashwood');
    const ok = await transcriptions.enqueue(sub.apiKey, speech);
    const done = await transcriptions.waitForJob(sub.apiKey, (ok.json.job as { id: string }).id);
    expect(done.status).toBe('done');
    const got = await deliveredOnce(sub, 'transcription.done', done.id);
    expect(got.json.data).toEqual(
      (await call('GET', `/v1/transcriptions/${done.id}`, { headers: sub.headers })).json.job,
    );
    const corrupt = await transcriptions.storeSource(sub.companyId, 'corrupt');
    const bad = await transcriptions.enqueue(sub.apiKey, corrupt);
    const failed = await transcriptions.waitForJob(sub.apiKey, (bad.json.job as { id: string }).id);
    expect((await deliveredOnce(sub, 'transcription.failed', failed.id)).json.data).toMatchObject({
      status: 'failed',
    });
  }, 90_000);
});

describe('events of messages', () => {
  it('workflow_run.finished carries the run as GET /v1/workflows/{id}/runs/{runId} shows it', async () => {
    const sub = await subscribe('starter', ['workflow_run.finished']);
    await savedWorkflow(sub.companyId, {
      id: 'evented',
      name: 'One token, one refused step',
      input: { type: 'object', properties: {} },
      steps: [
        { id: 'token', action: 'actions/security/auth/jwt/generate', with: { dur: 60 } },
        { id: 'wide', action: 'actions/security/auth/jwt/generate', with: { scopes: ['usage:read'] } },
      ],
    });
    const started = await runWorkflow(sub.apiKey, 'evented');
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({ status: 'partial', ok: false });
    const runId = String(started.json.runId);
    const got = await deliveredOnce(sub, 'workflow_run.finished', runId);
    expect(got.json.data).toEqual((await getRun(sub.apiKey, 'evented', runId)).json.run);
    expect(got.json.data).toMatchObject({ runId, status: 'partial', ok: false });
  });

  it('message.sent and message.failed carry the message as its item route shows it', async () => {
    const sub = await subscribe('starter', ['message.sent', 'message.failed']);
    const send = async (channel: string) => {
      const set = await runAdmin(
        'channels',
        'set',
        '--company',
        sub.companyId,
        '--url',
        `${receiver.base}${channel}`,
      );
      expect(set.code, set.err).toBe(0);
      const contact = await call('POST', '/v1/dynadata/type/contacts/create', {
        headers: sub.headers,
        body: { name: 'Ada' },
      });
      const sent = await call('POST', `/v1/contacts/${contact.json._id}/send_message`, {
        headers: sub.headers,
        body: { type: 'text', body: { text: 'Hello' } },
      });
      return sent.json.messageId as string;
    };
    const okId = await send('/channel-ok');
    const ok = await deliveredOnce(sub, 'message.sent', okId);
    const item = await call('GET', `/v1/dynadata/type/messages/item/${okId}`, { headers: sub.headers });
    expect(ok.json.data).toEqual(item.json);
    expect(ok.json.data.status).toBe('sent');
    receiver.answer('/channel-refuses', [400]);
    const badId = await send('/channel-refuses');
    expect((await deliveredOnce(sub, 'message.failed', badId)).json.data).toMatchObject({
      _id: badId,
      status: 'failed',
    });
  });
});

describe('usage thresholds', () => {
  it('raises usage.threshold_reached at 80 % and 100 % of a monthly allowance, once each', async () => {
    const sub = await subscribe('starter', ['usage.threshold_reached'], { apiRequestsPerMonth: 10 });
    for (let i = 0; i < 14; i++) await call('GET', '/v1/self', { headers: sub.headers });
    const got = await eventually(
      () => receiver.of(sub.path),
      (r) => r.length >= 2,
    );
    await new Promise((r) => setTimeout(r, 1000));
    const seen = receiver.of(sub.path).map((r) => r.json.data);
    expect(seen).toHaveLength(2);
    expect(got.map((r) => r.json.data)).toEqual([
      expect.objectContaining({ meter: 'api_requests', threshold: 80, limit: 10 }),
      expect.objectContaining({ meter: 'api_requests', threshold: 100, limit: 10 }),
    ]);
  });
});

describe('order and catch-up', () => {
  it("delivers a resource's events in order, one at a time, under a slow receiver", async () => {
    const sub = await subscribe('starter', ['transcode.canceled']);
    receiver.delay(sub.path, 700);
    const tone = await transcodes.storeSource(sub.companyId, 'tone', { seconds: 30 });
    const started = await call('POST', '/v1/transcodes', {
      headers: sub.headers,
      body: { ...tone, preset: 'wav' },
    });
    const id = (started.json.job as { id: string }).id;
    const expected: string[] = [];
    for (let round = 0; round < 3; round++) {
      const canceled = await call('POST', `/v1/transcodes/${id}/cancel`, { headers: sub.headers });
      expect(canceled.status).toBe(200);
      expected.push((canceled.json.job as { updatedAt: string }).updatedAt);
      if (round < 2) {
        await eventually(
          () => call('POST', `/v1/transcodes/${id}/retry`, { headers: sub.headers }),
          (r) => r.status === 202,
        );
      }
    }
    const got = await eventually(
      () => receiver.of(sub.path),
      (r) => r.length >= 3,
      30_000,
    );
    expect(got.map((r) => r.json.data.attempt)).toEqual([1, 2, 3]);
    expect(got.map((r) => r.json.data.updatedAt)).toEqual(expected);
    const ids = got.map((r) => r.json.id);
    expect([...ids].sort()).toEqual(ids);
    expect(receiver.maxInFlightPerResource()).toBe(1);
  }, 60_000);

  it('lets a consumer that was down catch up from GET /v1/events, newest first, page by page', async () => {
    const t = await createTenant({ plan: 'starter' });
    const headers = { 'x-api-key': t.apiKey };
    const endpoint = await call('POST', '/v1/webhooks', {
      headers,
      body: { url: 'http://127.0.0.1:9/down', events: ['*'] },
    });
    const id = (endpoint.json.endpoint as { id: string }).id;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const ping = await call('POST', `/v1/webhooks/${id}/test`, { headers });
      made.push((ping.json.event as { id: string }).id);
    }
    const first = await call('GET', '/v1/events?limit=2&type=ping', { headers });
    expect(first.status).toBe(200);
    expect((first.json.events as { id: string }[]).map((e) => e.id)).toEqual([made[4], made[3]]);
    const second = await call('GET', `/v1/events?limit=2&after=${first.json.next}`, { headers });
    expect((second.json.events as { id: string }[]).map((e) => e.id)).toEqual([made[2], made[1]]);
    const last = await call('GET', `/v1/events?limit=2&after=${second.json.next}`, { headers });
    expect((last.json.events as { id: string }[]).map((e) => e.id)).toEqual([made[0]]);
    expect(last.json.next).toBeNull();
    expect((await call('GET', '/v1/events?type=transcode.done', { headers })).json.events).toEqual([]);
    const detail = await eventually(
      () => call('GET', `/v1/events/${made[0]}`, { headers }),
      (r) => ((r.json.event as { deliveries: { attempts: number }[] }).deliveries[0]?.attempts ?? 0) > 0,
    );
    expect((detail.json.event as { deliveries: unknown[] }).deliveries[0]).toMatchObject({
      endpointId: id,
      lastStatus: 'network_error',
    });
  });
});
