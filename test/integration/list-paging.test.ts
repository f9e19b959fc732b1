import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../functions/shared/routes/route-definition';
import { ROUTES } from '../../functions/shared/routes/route-table';
import { call, createTenant, runAdmin } from './support';
import { eventually, startReceiver } from './webhook-receiver';
import { savedWorkflow } from './workflow-support';

/**
 * Every list pages by one rule: `limit` and `cursor` in, the page's array and `nextCursor` out (null on the last
 * page). For each list of the route table, a tenant with more members than a page walks the list two at a
 * time and must see exactly what one large page shows, in the same order, each member once.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
let tenant: Tenant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** The endpoint whose delivery log is walked (three pings). */
let loggedEndpoint = '';
/** The contact whose thread is walked (three inbound messages). */
let threadContact = '';
const headers = () => ({ 'x-api-key': tenant.apiKey });

interface ListCase {
  /** The array member of the page. */
  member: string;
  /** One page: `limit` and `cursor` go where the route takes them. */
  fetch: (limit: number, cursor?: string) => ReturnType<typeof call>;
  idOf: (member: Record<string, unknown>) => string;
}

const query = (limit: number, cursor?: string) =>
  `limit=${limit}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;

const LISTS: Record<string, ListCase> = {
  listDynadataTypes: {
    member: 'types',
    fetch: (limit, cursor) =>
      call('GET', `/v1/dynadata/types?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (t) => String(t.name),
  },
  listDynadataItems: {
    member: 'items',
    fetch: (limit, cursor) =>
      call('POST', '/v1/dynadata/type/contacts/list', {
        headers: headers(),
        body: { limit, ...(cursor === undefined ? {} : { cursor }) },
      }),
    idOf: (item) => String(item._id),
  },
  listContactMessages: {
    member: 'messages',
    fetch: (limit, cursor) =>
      call('GET', `/v1/contacts/${threadContact}/messages?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (m) => String(m._id),
  },
  listApiKeys: {
    member: 'keys',
    fetch: (limit, cursor) => call('GET', `/v1/keys?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (k) => String(k.id),
  },
  listFiles: {
    member: 'files',
    fetch: (limit, cursor) =>
      call('GET', `/v1/storage/files?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (f) => String(f.fullPath),
  },
  listWebhookEndpoints: {
    member: 'endpoints',
    fetch: (limit, cursor) => call('GET', `/v1/webhooks?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (e) => String(e.id),
  },
  listWebhookDeliveries: {
    member: 'deliveries',
    fetch: (limit, cursor) =>
      call('GET', `/v1/webhooks/${loggedEndpoint}/deliveries?${query(limit, cursor)}`, {
        headers: headers(),
      }),
    idOf: (d) => String(d.eventId),
  },
  listEvents: {
    member: 'events',
    fetch: (limit, cursor) => call('GET', `/v1/events?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (e) => String(e.id),
  },
  listSpeechJobs: {
    member: 'jobs',
    fetch: (limit, cursor) => call('GET', `/v1/speech/jobs?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (j) => String(j.id),
  },
  listTranscodes: {
    member: 'jobs',
    fetch: (limit, cursor) => call('GET', `/v1/transcodes?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (j) => String(j.id),
  },
  listTranscriptions: {
    member: 'jobs',
    fetch: (limit, cursor) =>
      call('GET', `/v1/transcriptions?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (j) => String(j.id),
  },
  listWorkflowRuns: {
    member: 'runs',
    fetch: (limit, cursor) =>
      call('GET', `/v1/workflows/wf-a/runs?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (r) => String(r.runId),
  },
  listWorkflowVersions: {
    member: 'versions',
    fetch: (limit, cursor) =>
      call('GET', `/v1/workflows/wf-a/versions?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (v) => String(v.version),
  },
  listWorkflowSecrets: {
    member: 'secrets',
    fetch: (limit, cursor) =>
      call('GET', `/v1/workflows/secrets?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (s) => String(s.name),
  },
  listWorkflows: {
    member: 'workflows',
    fetch: (limit, cursor) => call('GET', `/v1/workflows?${query(limit, cursor)}`, { headers: headers() }),
    idOf: (w) => String(w.id),
  },
};

/** A time between the pending and the failed transforms' creation. */
let seededAt = '';

/**
 * The job lists filtered (status, creation time, both): the same walk, and each filtered list shows exactly the
 * members of the unfiltered one that match.
 */
const jobFilter = (path: string, filter: () => Record<string, string>): ListCase => ({
  member: 'jobs',
  fetch: (limit, cursor) =>
    call('GET', `${path}?${new URLSearchParams(filter())}&${query(limit, cursor)}`, { headers: headers() }),
  idOf: (j) => String(j.id),
});
const FILTERED: Record<
  string,
  { list: ListCase; all: string; matches: (job: Record<string, unknown>) => boolean }
> = {
  'failed transforms': {
    list: jobFilter('/v1/transcodes', () => ({ status: 'failed' })),
    all: '/v1/transcodes',
    matches: (j) => j.status === 'failed',
  },
  'transforms created at or after a time': {
    list: jobFilter('/v1/transcodes', () => ({ createdAfter: seededAt })),
    all: '/v1/transcodes',
    matches: (j) => String(j.createdAt) >= seededAt,
  },
  'pending transforms created before a time': {
    list: jobFilter('/v1/transcodes', () => ({ status: 'pending', createdBefore: seededAt })),
    all: '/v1/transcodes',
    matches: (j) => j.status === 'pending' && String(j.createdAt) < seededAt,
  },
  'pending transcriptions in a window': {
    list: jobFilter('/v1/transcriptions', () => ({
      status: 'pending',
      createdAfter: '2026-01-01T00:00:00Z',
      createdBefore: new Date(Date.now() + 60_000).toISOString(),
    })),
    all: '/v1/transcriptions',
    matches: (j) => j.status === 'pending',
  },
  'pending speech jobs': {
    list: jobFilter('/v1/speech/jobs', () => ({ status: 'pending' })),
    all: '/v1/speech/jobs',
    matches: (j) => j.status === 'pending',
  },
};

/** Walks a list `limit` at a time; answers the ids in the order shown. */
const walk = async (list: ListCase, limit: number): Promise<string[]> => {
  const walked: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await list.fetch(limit, cursor);
    expect(page.status, JSON.stringify(page.json)).toBe(200);
    const members = page.json[list.member] as Record<string, unknown>[];
    expect(members.length).toBeLessThanOrEqual(limit);
    walked.push(...members.map(list.idOf));
    const next = page.json.nextCursor;
    if (next === null) return walked;
    expect(typeof next).toBe('string');
    cursor = String(next);
  }
  throw new Error('the walk did not end in 20 pages');
};

/** Lists of the route table: a response with `nextCursor`. */
const listRoutes = (ROUTES as readonly RouteDefinition[]).filter((route) => {
  const shape = (route.response as { shape?: Record<string, unknown> }).shape;
  return shape !== undefined && 'nextCursor' in shape;
});

beforeAll(async () => {
  tenant = await createTenant();
  receiver = await startReceiver();
  const file = join(mkdtempSync(join(tmpdir(), 'paging-')), 'schema.json');
  writeFileSync(file, JSON.stringify({ type: 'object', properties: { n: { type: 'number' } } }));
  for (const name of ['alpha', 'beta', 'gamma']) {
    const put = await runAdmin('types', 'put', '--company', tenant.companyId, '--name', name, '--file', file);
    expect(put.code, put.err).toBe(0);
  }
  for (let i = 0; i < 5; i++) {
    const created = await call('POST', '/v1/dynadata/type/contacts/create', {
      headers: headers(),
      body: { name: `Contact ${i}` },
    });
    expect(created.status).toBe(201);
    threadContact = String(created.json._id);
  }
  for (let i = 0; i < 3; i++) {
    const inbound = await call('POST', '/v1/messages/inbound', {
      headers: headers(),
      body: { contactId: threadContact, message: { type: 'text', body: { text: `Reply ${i}` } } },
    });
    expect(inbound.status).toBe(201);
  }
  for (let i = 0; i < 3; i++) {
    const key = await call('POST', '/v1/keys', {
      headers: headers(),
      body: { name: `k${i}`, scopes: ['usage:read'] },
    });
    expect(key.status).toBe(201);
  }
  for (const name of ['API_A', 'API_B', 'API_C']) {
    const secret = await call('PUT', `/v1/workflows/secrets/${name}`, {
      headers: headers(),
      body: { value: `value-of-${name}` },
    });
    expect(secret.status).toBe(201);
  }
  const { upload } = await import('./storage-uploads');
  for (let i = 0; i < 3; i++) await upload(tenant, new Uint8Array([i, i, i]));
  for (let i = 0; i < 3; i++) {
    const endpoint = await call('POST', '/v1/webhooks', {
      headers: headers(),
      body: { url: `${receiver.base}/e${i}`, events: ['*'] },
    });
    expect(endpoint.status).toBe(201);
    const id = String((endpoint.json.endpoint as { id: string }).id);
    expect((await call('POST', `/v1/webhooks/${id}/test`, { headers: headers() })).status).toBe(202);
    if (i === 0) loggedEndpoint = id;
  }
  for (let i = 0; i < 2; i++) {
    const ping = await call('POST', `/v1/webhooks/${loggedEndpoint}/test`, { headers: headers() });
    expect(ping.status).toBe(202);
  }
  // The log is read from an index: every delivery in it, and ended, before it is walked.
  await eventually(
    () => call('GET', `/v1/webhooks/${loggedEndpoint}/deliveries`, { headers: headers() }),
    (r) => {
      const deliveries = (r.json.deliveries ?? []) as { status: string }[];
      return deliveries.length === 3 && deliveries.every((d) => d.status !== 'pending');
    },
  );
  const { seedJob } = await import('./transcode-support');
  for (let i = 0; i < 3; i++) await seedJob(tenant.companyId, 'pending', { queueCap: 10 });
  // The failed transforms are created after `seededAt`, the pending ones before it.
  await new Promise((resolve) => setTimeout(resolve, 5));
  seededAt = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 5));
  for (let i = 0; i < 3; i++) await seedJob(tenant.companyId, 'failed', { queueCap: 10 });
  const transcriptions = await import('./transcription-support');
  for (let i = 0; i < 3; i++) await transcriptions.seedJob(tenant.companyId, 'pending');
  const { seedPendingSpeechJob } = await import('./speech-job-support');
  for (let i = 0; i < 3; i++) await seedPendingSpeechJob(tenant.companyId);
  for (const id of ['wf-a', 'wf-b', 'wf-c', 'wf-a', 'wf-a']) {
    await savedWorkflow(tenant.companyId, {
      id,
      name: id,
      steps: [{ id: 's', action: 'actions/dynadata/list', with: { type: 'contacts' } }],
    });
  }
  for (let i = 0; i < 3; i++) {
    const run = await call('POST', '/v1/workflows/wf-a/run', { headers: headers(), body: {} });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
  }
});
afterAll(() => receiver.close());

describe('one paging rule for every list', () => {
  it('every list of the route table has a case here and takes `limit` and `cursor`', () => {
    expect(listRoutes.map((r) => r.operationId).sort()).toEqual(Object.keys(LISTS).sort());
    for (const route of listRoutes) {
      const input = (route.method === 'GET' ? route.query : route.body) as {
        shape?: Record<string, unknown>;
      };
      expect(Object.keys(input?.shape ?? {}), route.operationId).toEqual(
        expect.arrayContaining(['limit', 'cursor']),
      );
    }
  });

  it.each(Object.keys(LISTS))('%s walked two at a time shows what one page shows', async (operationId) => {
    const list = LISTS[operationId];
    if (!list) throw new Error(`no case for ${operationId}`);
    const all = await list.fetch(100);
    expect(all.status, JSON.stringify(all.json)).toBe(200);
    expect(all.json.nextCursor).toBeNull();
    const everyone = (all.json[list.member] as Record<string, unknown>[]).map(list.idOf);
    expect(everyone.length).toBeGreaterThan(2);
    expect(await walk(list, 2)).toEqual(everyone);
  });

  it.each(Object.keys(FILTERED))('%s: walked two at a time, exactly the matching jobs', async (name) => {
    const filtered = FILTERED[name];
    if (!filtered) throw new Error(`no case for ${name}`);
    const all = await call('GET', `${filtered.all}?limit=100`, { headers: headers() });
    const matching = (all.json.jobs as Record<string, unknown>[])
      .filter(filtered.matches)
      .map((j) => String(j.id));
    expect(matching.length).toBeGreaterThan(2);
    const one = await filtered.list.fetch(100);
    expect(one.status, JSON.stringify(one.json)).toBe(200);
    expect((one.json.jobs as Record<string, unknown>[]).map((j) => String(j.id))).toEqual(matching);
    expect(await walk(filtered.list, 2)).toEqual(matching);
  });

  it("another tenant's workflow has no run list here, and its jobs are not listed", async () => {
    const other = await createTenant();
    const runs = await call('GET', '/v1/workflows/wf-a/runs', { headers: { 'x-api-key': other.apiKey } });
    expect(runs.status).toBe(404);
    const jobs = await call('GET', '/v1/transcodes', { headers: { 'x-api-key': other.apiKey } });
    expect(jobs.json).toEqual({ jobs: [], nextCursor: null });
  });

  it('a cursor that is not one of the list is refused at its pointer', async () => {
    const events = await call('GET', '/v1/events?cursor=nope', { headers: headers() });
    expect(events.status).toBe(400);
    expect(JSON.stringify(events.json.errors)).toContain('/query/cursor');
    const items = await call('POST', '/v1/dynadata/type/contacts/list', {
      headers: headers(),
      body: { cursor: 'bm9wZQ' },
    });
    expect(items.status).toBe(400);
    expect(JSON.stringify(items.json.errors)).toContain('/body/cursor');
  });

  it('every list refuses `cursor=garbage!!` with 400 validation_failed at its pointer, never a page', async () => {
    for (const [operationId, list] of Object.entries(LISTS)) {
      const res = await list.fetch(2, 'garbage!!');
      expect([operationId, res.status, res.json.code]).toEqual([operationId, 400, 'validation_failed']);
      const pointer = operationId === 'listDynadataItems' ? '/body/cursor' : '/query/cursor';
      expect([operationId, res.json.errors]).toEqual([
        operationId,
        [{ pointer, message: expect.any(String) }],
      ]);
    }
  });
});
