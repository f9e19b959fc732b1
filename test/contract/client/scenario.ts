import createClient from 'openapi-fetch';
import { expect } from 'vitest';
import type { paths } from '../generated/openapi';

/**
 * A client's tour of every route group, written only against the types generated from the OpenAPI document
 * (`openapi-typescript`) and the typed paths of `openapi-fetch`: request shapes, success bodies and the
 * problem bodies read through the typed `error`. `test/contract/client/tsconfig.json` type-checks it
 * strictly against freshly generated types; `test/integration/contract-client.test.ts` runs it against the
 * local stack. A document that drifts from the API breaks one or the other.
 */
export interface ScenarioInput {
  apiUrl: string;
  apiKey: string;
  /** A custom Dynadata type of the tenant whose items take `title` (string) and `amount` (number). */
  orderType: string;
  /** A valid WAV file, stored then converted by the transcode steps. */
  wav: Uint8Array;
}

export const runClientScenario = async ({
  apiUrl,
  apiKey,
  orderType,
  wav,
}: ScenarioInput): Promise<string[]> => {
  const steps: string[] = [];
  const step = (name: string) => steps.push(name);
  const api = createClient<paths>({ baseUrl: apiUrl, headers: { 'x-api-key': apiKey } });
  const anonymous = createClient<paths>({ baseUrl: apiUrl });

  // Public plans: no credential.
  {
    const { data, error, response } = await anonymous.GET('/v1/public/plans', {
      params: { query: { sellableOnly: true } },
    });
    expect(error, JSON.stringify(error)).toBeUndefined();
    expect(response.status).toBe(200);
    const plans = data?.plans ?? [];
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every((p) => p.sellable)).toBe(true);
    const firstLimit: number | undefined = plans[0]?.limits.apiRequestsPerMonth;
    expect(typeof firstLimit).toBe('number');
    step('public plans');
  }

  // A missing credential: the typed error is a problem with a code.
  {
    const { error, response } = await anonymous.GET('/v1/self');
    expect(response.status).toBe(401);
    expect(error?.code).toBe('unauthorized');
    expect(error?.requestId).toBe(response.headers.get('x-request-id'));
    step('self without a credential');
  }

  // Self and usage.
  {
    const { data, error } = await api.GET('/v1/self');
    expect(error, JSON.stringify(error)).toBeUndefined();
    const companyId: string | undefined = data?.company.id;
    expect(companyId).toMatch(/^co_/);
    const usage = await api.GET('/v1/usage', { params: { query: { granularity: 'day' } } });
    expect(usage.error, JSON.stringify(usage.error)).toBeUndefined();
    expect(usage.data?.success).toBe(true);
    step('self and usage');
  }

  // Dynadata: types, create, get, update, validate, list, executeFunction count, delete.
  {
    const types = await api.GET('/v1/dynadata/types');
    expect(types.data?.types.map((t) => t.name)).toContain(orderType);
    const path = { type: orderType };
    const created = await api.POST('/v1/dynadata/type/{type}/create', {
      params: { path },
      body: { title: 'First order', amount: 12 },
    });
    expect(created.error, JSON.stringify(created.error)).toBeUndefined();
    expect(created.response.status).toBe(201);
    const id: string = created.data?._id ?? '';
    const version: number = created.data?._version ?? 0;
    expect(version).toBe(1);

    const read = await api.GET('/v1/dynadata/type/{type}/item/{_id}', {
      params: { path: { ...path, _id: id } },
    });
    expect(read.data?._id).toBe(id);

    const updated = await api.POST('/v1/dynadata/type/{type}/update', {
      params: { path },
      body: { _id: id, _version: version, amount: 13 },
    });
    expect(updated.error, JSON.stringify(updated.error)).toBeUndefined();
    expect(updated.data?._version).toBe(2);

    const stale = await api.POST('/v1/dynadata/type/{type}/update', {
      params: { path },
      body: { _id: id, _version: version, amount: 14 },
    });
    expect(stale.response.status).toBe(409);
    expect(stale.error?.code).toBe('conflict');

    const validated = await api.POST('/v1/dynadata/type/{type}/validate', {
      params: { path },
      body: { title: '', amount: -1 },
    });
    expect(validated.data?.valid).toBe(false);
    expect(validated.data?.errors.length).toBeGreaterThan(0);

    const listed = await api.POST('/v1/dynadata/type/{type}/list', { params: { path }, body: { limit: 10 } });
    expect(listed.error, JSON.stringify(listed.error)).toBeUndefined();
    expect(listed.data?.items.map((i) => i._id)).toContain(id);

    const counted = await api.POST('/v1/dynadata/type/{type}/executeFunction/{functionName}', {
      params: { path: { ...path, functionName: 'count' } },
      body: {},
    });
    expect(counted.error, JSON.stringify(counted.error)).toBeUndefined();
    const count = counted.data && 'count' in counted.data ? counted.data : undefined;
    expect(count?.count).toBeGreaterThanOrEqual(1);
    expect(count?.complete).toBe(true);

    const deleted = await api.DELETE('/v1/dynadata/type/{type}/item/{_id}', {
      params: { path: { ...path, _id: id } },
    });
    expect(deleted.data?.deleted).toBe(true);

    const gone = await api.GET('/v1/dynadata/type/{type}/item/{_id}', {
      params: { path: { ...path, _id: id } },
    });
    expect(gone.response.status).toBe(404);
    expect(gone.data).toBeUndefined();
    expect(gone.error?.code).toBe('not_found');
    expect(gone.error?.status).toBe(404);

    const invalid = await api.POST('/v1/dynadata/type/{type}/create', {
      params: { path },
      body: { title: 7 },
    });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.code).toBe('validation_failed');
    expect(invalid.error?.errors?.[0]?.pointer).toMatch(/^\/body/);
    step('dynadata');
  }

  // Contacts: send a message (the tenant has a webhook delivery channel).
  {
    const contact = await api.POST('/v1/dynadata/type/{type}/create', {
      params: { path: { type: 'contacts' } },
      body: { name: 'Ada' },
    });
    expect(contact.error, JSON.stringify(contact.error)).toBeUndefined();
    const sent = await api.POST('/v1/contacts/{contactId}/send_message', {
      params: { path: { contactId: contact.data?._id ?? '' } },
      body: { type: 'text', body: { text: 'Hello Ada' } },
    });
    expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
    expect(sent.response.status).toBe(202);
    const status: 'queued' | 'scheduled' | undefined = sent.data?.status;
    expect(status).toBe('queued');
    step('contacts send_message');
  }

  // Storage: reserve, upload to the signed URL, complete, download URL.
  let stored: { bucket: string; fullPath: string };
  {
    const reserved = await api.POST('/v1/storage/upload-url', {
      body: { fileName: 'tone.wav', contentType: 'audio/wav', size: wav.byteLength },
    });
    expect(reserved.error, JSON.stringify(reserved.error)).toBeUndefined();
    const reservation = reserved.data;
    if (!reservation) throw new Error('no reservation');
    const upload = await fetch(reservation.uploadUrl, {
      method: reservation.method,
      headers: reservation.headers,
      body: wav,
    });
    expect(upload.ok).toBe(true);
    const completed = await api.POST('/v1/storage/upload-complete', {
      body: { bucket: reservation.bucket, fullPath: reservation.fullPath },
    });
    expect(completed.error, JSON.stringify(completed.error)).toBeUndefined();
    expect(completed.data?.size).toBe(wav.byteLength);
    stored = { bucket: reservation.bucket, fullPath: reservation.fullPath };
    const url = await api.GET('/v1/storage/url', { params: { query: { ...stored, expiresIn: 60 } } });
    expect(url.error, JSON.stringify(url.error)).toBeUndefined();
    expect(url.data?.url).toMatch(/^http/);
    const missing = await api.GET('/v1/storage/url', {
      params: { query: { fullPath: `${stored.fullPath}.missing` } },
    });
    expect(missing.error?.code).toBe('not_found');
    step('storage');
  }

  // Media transforms: create, get, cancel, retry.
  {
    const created = await api.POST('/v1/transcodes', {
      body: { fullPath: stored.fullPath, preset: 'ogg_opus' },
    });
    expect(created.error, JSON.stringify(created.error)).toBeUndefined();
    expect(created.response.status).toBe(202);
    const jobId: string = created.data?.job.id ?? '';
    const read = await api.GET('/v1/transcodes/{id}', { params: { path: { id: jobId } } });
    expect(read.data?.job.id).toBe(jobId);
    const canceled = await api.POST('/v1/transcodes/{id}/cancel', { params: { path: { id: jobId } } });
    if (canceled.error) {
      // The conversion of a short file may finish before the cancel arrives.
      expect(canceled.error.code).toBe('transcode_job_not_cancelable');
    } else {
      expect(canceled.data?.job.status).toBe('canceled');
    }
    const retried = await api.POST('/v1/transcodes/{id}/retry', { params: { path: { id: jobId } } });
    if (canceled.error) {
      expect(retried.error?.code).toBe('transcode_job_not_retryable');
    } else {
      expect(retried.error, JSON.stringify(retried.error)).toBeUndefined();
      expect(retried.response.status).toBe(202);
      expect(retried.data?.job.attempt).toBe(2);
    }
    const unknown = await api.GET('/v1/transcodes/{id}', { params: { path: { id: 'tc_unknown' } } });
    expect(unknown.error?.code).toBe('not_found');
    step('transcodes');
  }

  {
    const enqueued = await api.POST('/v1/transcriptions', {
      body: { fullPath: stored.fullPath, language: 'en-US' },
    });
    expect(enqueued.error, JSON.stringify(enqueued.error)).toBeUndefined();
    expect(enqueued.response.status).toBe(202);
    const id = enqueued.data?.job.id ?? '';
    const fetched = await api.GET('/v1/transcriptions/{id}', { params: { path: { id } } });
    expect(fetched.error, JSON.stringify(fetched.error)).toBeUndefined();
    expect(fetched.data?.job.id).toBe(id);
    const unsupported = await api.POST('/v1/transcriptions', {
      body: { fullPath: stored.fullPath, language: 'auto' },
    });
    expect(unsupported.response.status).toBe(400);
    expect(unsupported.error?.code).toBeTypeOf('string');
    const unknown = await api.GET('/v1/transcriptions/{id}', { params: { path: { id: 'tr_unknown' } } });
    expect(unknown.error?.code).toBe('not_found');
    step('transcriptions');
  }

  // Markdown rewritten for the ear.
  {
    const spoken = await api.POST('/v1/spoken-text', { body: { markdown: '# Hello\n\n- one & two' } });
    expect(spoken.error, JSON.stringify(spoken.error)).toBeUndefined();
    expect(spoken.data?.text).toBe('Hello. First, one and two.');
    expect(spoken.data?.truncated).toBe(false);
    expect(spoken.data?.parts).toEqual(['Hello. First, one and two.']);
    step('spoken-text');
  }

  // Speech: the voices, and text synthesized into a stored object.
  {
    const voices = await api.GET('/v1/speech/voices');
    expect(voices.error, JSON.stringify(voices.error)).toBeUndefined();
    const voice = voices.data?.voices.find((v) => v.default);
    expect(voice?.meter).toBe('speech_characters');
    const spoken = await api.POST('/v1/speech', {
      body: { text: 'Hello from the contract.', voiceProfileId: voice?.id ?? '', format: 'ogg_opus' },
    });
    expect(spoken.error, JSON.stringify(spoken.error)).toBeUndefined();
    expect(spoken.response.status).toBe(201);
    expect(spoken.data?.format).toBe('ogg_opus');
    expect(spoken.data?.characters).toBe('Hello from the contract.'.length);
    const unknown = await api.POST('/v1/speech', { body: { text: 'Hi', voiceProfileId: 'nobody' } });
    expect(unknown.error?.code).toBe('validation_failed');
    // Speech jobs: the seeded tenant's queue is held full (test/contract/seed.ts), so an enqueue is refused
    // with its typed problem; the list reads the company's jobs.
    const job = await api.POST('/v1/speech/jobs', { body: { markdown: '# Hello\n\nA long read.' } });
    expect(job.response.status).toBe(429);
    expect(job.error?.code).toBe('speech_job_queue_full');
    const jobs = await api.GET('/v1/speech/jobs', { params: { query: { limit: 5 } } });
    expect(jobs.error, JSON.stringify(jobs.error)).toBeUndefined();
    expect(jobs.data?.jobs).toEqual([]);
    const missing = await api.GET('/v1/speech/jobs/{id}', { params: { path: { id: 'sj_missing' } } });
    expect(missing.error?.code).toBe('not_found');
    step('speech');
  }

  // Webhook endpoints and events: register, ping, read the event and its delivery, page events, delete.
  {
    const created = await api.POST('/v1/webhooks', {
      body: { url: 'http://127.0.0.1:9/contract', events: ['transcode.done', 'message.sent'] },
    });
    expect(created.error, JSON.stringify(created.error)).toBeUndefined();
    expect(created.response.status).toBe(201);
    const secret: string = created.data?.secret ?? '';
    expect(secret).toMatch(/^whsec_/);
    const id = created.data?.endpoint.id ?? '';
    const listed = await api.GET('/v1/webhooks');
    expect(listed.data?.endpoints.map((e) => e.id)).toContain(id);
    const one = await api.GET('/v1/webhooks/{id}', { params: { path: { id } } });
    expect(one.data?.endpoint.status).toBe('enabled');
    const ping = await api.POST('/v1/webhooks/{id}/test', { params: { path: { id } } });
    expect(ping.error, JSON.stringify(ping.error)).toBeUndefined();
    expect(ping.response.status).toBe(202);
    const eventId = ping.data?.event.id ?? '';
    expect(ping.data?.event.type).toBe('ping');
    const event = await api.GET('/v1/events/{id}', { params: { path: { id: eventId } } });
    expect(event.error, JSON.stringify(event.error)).toBeUndefined();
    expect(event.data?.event.id).toBe(eventId);
    expect(Array.isArray(event.data?.event.deliveries)).toBe(true);
    const page = await api.GET('/v1/events', { params: { query: { type: 'ping', limit: 10 } } });
    expect(page.data?.events[0]?.id).toBe(eventId);
    const endpoints = await api.GET('/v1/webhooks', { params: { query: { limit: 1 } } });
    expect(endpoints.data?.endpoints.length).toBe(1);
    const more = endpoints.data?.nextCursor;
    if (more) await api.GET('/v1/webhooks', { params: { query: { limit: 1, cursor: more } } });
    const refused = await api.POST('/v1/webhooks', { body: { url: 'http://example.com/', events: ['*'] } });
    expect(refused.error?.code).toBe('validation_failed');
    const deleted = await api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } });
    expect(deleted.data).toEqual({ deleted: true, id });
    const gone = await api.GET('/v1/webhooks/{id}', { params: { path: { id } } });
    expect(gone.error?.code).toBe('not_found');
    const unknown = await api.GET('/v1/events/{id}', { params: { path: { id: 'evt_unknown' } } });
    expect(unknown.error?.code).toBe('not_found');
    step('webhooks and events');
  }

  // The MCP server (one JSON-RPC message per POST) and the documentation page.
  {
    const listed = await api.POST('/v1/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(listed.error, JSON.stringify(listed.error)).toBeUndefined();
    expect(listed.data?.id).toBe(1);
    const tools = (listed.data?.result?.tools ?? []) as { name: string }[];
    expect(tools.map((t) => t.name)).toContain('get_usage');
    const usage = await api.POST('/v1/mcp', {
      body: { jsonrpc: '2.0', id: 'u', method: 'tools/call', params: { name: 'get_usage', arguments: {} } },
    });
    const result = usage.data?.result as { structuredContent?: { plan?: unknown } } | undefined;
    expect(result?.structuredContent?.plan).toBeDefined();
    const notification = await api.POST('/v1/mcp', {
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
    expect(notification.response.status).toBe(202);
    const invalid = await api.POST('/v1/mcp', { body: { jsonrpc: '2.0', method: '' } });
    expect(invalid.error?.code).toBe('validation_failed');
    const page = await anonymous.GET('/v1/docs', { parseAs: 'text' });
    expect(page.response.status).toBe(200);
    expect(page.data).toContain('<div id="swagger-ui">');
    step('mcp and docs');
  }

  // Workflows: the seeded `contract` workflow, run sync and async, and its run read back.
  {
    const list = await api.GET('/v1/workflows');
    expect(list.error, JSON.stringify(list.error)).toBeUndefined();
    expect(list.data?.workflows.map((w) => w.id)).toContain('contract');
    const got = await api.GET('/v1/workflows/{id}', { params: { path: { id: 'contract' } } });
    const version: number | undefined = got.data?.workflow.version;
    expect(version).toBe(1);
    const sync = await api.POST('/v1/workflows/{id}/run', {
      params: { path: { id: 'contract' } },
      body: { input: { name: 'Grace' }, includeStepOutputs: true },
    });
    expect(sync.error, JSON.stringify(sync.error)).toBeUndefined();
    expect(sync.response.status).toBe(200);
    const finished = sync.data && 'ok' in sync.data ? sync.data : undefined;
    expect(finished?.ok).toBe(true);
    expect(finished?.status).toBe('success');
    const runId = sync.data?.runId ?? '';
    const run = await api.GET('/v1/workflows/{id}/runs/{runId}', {
      params: { path: { id: 'contract', runId }, query: { includeStepOutputs: true } },
    });
    expect(run.data?.run.status).toBe('success');
    expect(run.data?.run.version).toBe(1);
    expect(run.data?.run.stepOutputs?.[0]?.step).toBe('spoken');
    const accepted = await api.POST('/v1/workflows/{id}/run', {
      params: { path: { id: 'contract' } },
      body: { mode: 'async' },
    });
    expect(accepted.response.status).toBe(202);
    expect(typeof accepted.data?.runId).toBe('string');
    const missing = await api.POST('/v1/workflows/{id}/run', { params: { path: { id: 'nope' } }, body: {} });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.code).toBe('not_found');
    step('workflows');
  }
  return steps;
};

/** Compile-time proofs that the generated types are precise (this file fails to type-check otherwise). */
export const typeProofs = async (apiUrl: string) => {
  const api = createClient<paths>({ baseUrl: apiUrl });
  // @ts-expect-error a path the document does not have
  await api.GET('/v1/not-a-route');
  // @ts-expect-error a method the path does not have
  await api.DELETE('/v1/self');
  // @ts-expect-error the path parameter `type` is required
  await api.POST('/v1/dynadata/type/{type}/list', { params: { path: {} }, body: {} });
  // @ts-expect-error `preset` is one of the declared presets
  await api.POST('/v1/transcodes', { body: { fullPath: 'x', preset: 'mp3' } });
  // @ts-expect-error an event type the document does not declare
  await api.GET('/v1/events', { params: { query: { type: 'job.done' } } });
  // @ts-expect-error `granularity` is `month` or `day`
  await api.GET('/v1/usage', { params: { query: { granularity: 'year' } } });
  const { data } = await api.GET('/v1/self');
  // @ts-expect-error the company has no `password`
  data?.company.password;
};
