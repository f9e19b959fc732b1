import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../functions/shared/routes/route-definition';
import { ROUTES } from '../../functions/shared/routes/route-table';
import { seedPendingSpeechJob } from './speech-job-support';
import { binaryFile, uploadAllParts } from './storage-uploads';
import { call, createContact, createTenant, expectProblem } from './support';
import { seedJob, storeSource } from './transcode-support';
import { startReceiver } from './webhook-receiver';
import { savedWorkflow } from './workflow-support';

/**
 * `Idempotency-Key` on every POST of the route table, driven by the table itself: each `keyed` route answers a
 * repeat with the same key by replaying its first answer (`Idempotent-Replayed: true`, the same status and
 * body, nothing done twice) and refuses the key with another body (422); each `repeatable` route accepts the
 * header and answers as without it; each `refused` route answers 400. A POST added to the table without a
 * case here fails the first test, so no route can ignore the header unnoticed.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
/** An enabled endpoint of the tenant (the plan caps how many it may create): the first listed, or a new one. */
const anEndpoint = async (): Promise<string> => {
  const listed = await call('GET', '/v1/webhooks', { headers: headers() });
  const enabled = (listed.json.endpoints as { id: string; status: string }[]).find(
    (e) => e.status === 'enabled',
  );
  if (enabled) return enabled.id;
  const created = await call('POST', '/v1/webhooks', {
    headers: headers(),
    body: { url: `${receiver.base}/admin`, events: ['*'] },
  });
  expect(created.status).toBe(201);
  return String((created.json.endpoint as { id: string }).id);
};

interface Case {
  /** The path with its parameters filled in, and a body. */
  path: string;
  body: unknown;
  /** Another request with the same key: another body, or another path where the route takes no body. */
  other: { path?: string; body?: unknown };
}

let tenant: Tenant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let holding: { url: string; close: () => void };
/** A loopback server that takes requests and never answers them. */
const startHolding = async () => {
  const server = createServer(() => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hold`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
};
const headers = () => ({ 'x-api-key': tenant.apiKey });
const unique = () => `k-${Math.random().toString(36).slice(2)}`;

/** One prepared case per `keyed` operation: whatever the request needs exists before it is sent. */
const KEYED_CASES: Record<string, () => Promise<Case>> = {
  sendMessage: async () => {
    const contactId = await createContact(headers(), 'Ada');
    return {
      path: `/v1/contacts/${contactId}/send_message`,
      body: { type: 'text', body: { text: 'Hello' } },
      other: { body: { type: 'text', body: { text: 'Goodbye' } } },
    };
  },
  reportMessageStatus: async () => {
    const contactId = await createContact(headers(), 'Ada');
    const sent = await call('POST', `/v1/contacts/${contactId}/send_message`, {
      headers: headers(),
      body: { type: 'text', body: { text: 'Hello' } },
    });
    expect(sent.status).toBe(202);
    // The tenant has no channel, so the message ends `failed` at once: a `failed` report is a 200 either way.
    return {
      path: `/v1/messages/${String(sent.json.messageId)}/status`,
      body: { status: 'failed', reason: 'unreachable' },
      other: { body: { status: 'failed', reason: 'refused' } },
    };
  },
  receiveMessage: async () => {
    const contactId = await createContact(headers(), 'Ada');
    return {
      path: '/v1/messages/inbound',
      body: { contactId, message: { type: 'text', body: { text: 'Hello' } } },
      other: { body: { contactId, message: { type: 'text', body: { text: 'Goodbye' } } } },
    };
  },
  cancelMessage: async () => {
    const contactId = await createContact(headers(), 'Ada');
    const schedule = async () => {
      const sent = await call('POST', `/v1/contacts/${contactId}/send_message`, {
        headers: headers(),
        body: {
          type: 'text',
          body: { text: 'Later' },
          sendAt: new Date(Date.now() + 3600_000).toISOString(),
        },
      });
      expect(sent.json.status).toBe('scheduled');
      return String(sent.json.messageId);
    };
    const [id, other] = [await schedule(), await schedule()];
    return {
      path: `/v1/messages/${id}/cancel`,
      body: undefined,
      other: { path: `/v1/messages/${other}/cancel` },
    };
  },
  createDynadataItem: async () => ({
    path: '/v1/dynadata/type/contacts/create',
    body: { name: 'Grace' },
    other: { body: { name: 'Hedy' } },
  }),
  updateDynadataItem: async () => {
    const _id = await createContact(headers(), 'Ada');
    return {
      path: '/v1/dynadata/type/contacts/update',
      body: { _id, name: 'Ada Lovelace' },
      other: { body: { _id, name: 'Ada King' } },
    };
  },
  batchDynadataItems: async () => ({
    path: '/v1/dynadata/type/contacts/batch',
    body: { operations: [{ op: 'create', item: { name: 'Grace' } }] },
    other: { body: { operations: [{ op: 'create', item: { name: 'Hedy' } }] } },
  }),
  executeDynadataTypeFunction: async () => ({
    path: '/v1/dynadata/type/contacts/executeFunction/count',
    body: {},
    other: { body: { filter: { name: { prefix: 'A' } } } },
  }),
  executeDynadataItemFunction: async () => {
    const contactId = await createContact(headers(), 'Ada');
    return {
      path: `/v1/dynadata/type/contacts/item/${contactId}/executeFunction/sendMessage`,
      body: { type: 'text', body: { text: 'Hello' } },
      other: { body: { type: 'text', body: { text: 'Goodbye' } } },
    };
  },
  rotateMessageChannelSecret: async () => {
    const set = await call('PUT', '/v1/messaging/channel', {
      headers: headers(),
      body: { url: `${receiver.base}/channel` },
    });
    expect([200, 201]).toContain(set.status);
    return {
      path: '/v1/messaging/channel/rotate-secret',
      body: { overlapSeconds: 60 },
      other: { body: { overlapSeconds: 120 } },
    };
  },
  createApiKey: async () => ({
    path: '/v1/keys',
    body: { name: 'replayed', scopes: ['usage:read'] },
    other: { body: { name: 'replayed', scopes: ['company:read'] } },
  }),
  createWebhookEndpoint: async () => ({
    path: '/v1/webhooks',
    body: { url: `${receiver.base}/a`, events: ['transcode.done'] },
    other: { body: { url: `${receiver.base}/b`, events: ['transcode.done'] } },
  }),
  testWebhookEndpoint: async () => {
    const created = await call('POST', '/v1/webhooks', {
      headers: headers(),
      body: { url: `${receiver.base}/ping`, events: ['*'] },
    });
    expect(created.status).toBe(201);
    const id = String((created.json.endpoint as { id: string }).id);
    const second = await call('POST', '/v1/webhooks', {
      headers: headers(),
      body: { url: `${receiver.base}/ping2`, events: ['*'] },
    });
    const otherId = String((second.json.endpoint as { id: string }).id);
    return {
      path: `/v1/webhooks/${id}/test`,
      body: undefined,
      other: { path: `/v1/webhooks/${otherId}/test` },
    };
  },
  rotateWebhookSecret: async () => {
    const id = await anEndpoint();
    return {
      path: `/v1/webhooks/${id}/rotate-secret`,
      body: { overlapSeconds: 60 },
      other: { body: { overlapSeconds: 120 } },
    };
  },
  redeliverEvent: async () => {
    const id = await anEndpoint();
    const ping = await call('POST', `/v1/webhooks/${id}/test`, { headers: headers() });
    expect(ping.status).toBe(202);
    const eventId = String((ping.json.event as { id: string }).id);
    return {
      path: `/v1/events/${eventId}/redeliver`,
      body: {},
      other: { body: { endpointId: id } },
    };
  },
  synthesizeSpeech: async () => ({
    path: '/v1/speech',
    body: { text: 'Your order has shipped.', format: 'wav' },
    other: { body: { text: 'Your order is late.', format: 'wav' } },
  }),
  createSpeechJob: async () => ({
    path: '/v1/speech/jobs',
    body: { text: 'Your order has shipped.', format: 'wav' },
    other: { body: { text: 'Your order is late.', format: 'wav' } },
  }),
  cancelSpeechJob: async () => {
    const job = await seedPendingSpeechJob(tenant.companyId);
    const other = await seedPendingSpeechJob(tenant.companyId);
    return {
      path: `/v1/speech/jobs/${job.jobId}/cancel`,
      body: undefined,
      other: { path: `/v1/speech/jobs/${other.jobId}/cancel` },
    };
  },
  createUploadUrl: async () => ({
    path: '/v1/storage/upload-url',
    body: { fileName: 'a.wav', contentType: 'audio/wav', size: 100 },
    other: { body: { fileName: 'b.wav', contentType: 'audio/wav', size: 100 } },
  }),
  completeUpload: async () => {
    const a = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const b = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    return {
      path: '/v1/storage/upload-complete',
      body: { fullPath: a.fullPath },
      other: { body: { fullPath: b.fullPath } },
    };
  },
  createMultipartUpload: async () => ({
    path: '/v1/storage/multipart-uploads',
    body: { fileName: 'a.bin', contentType: 'application/octet-stream', size: 100 },
    other: { body: { fileName: 'b.bin', contentType: 'application/octet-stream', size: 100 } },
  }),
  completeMultipartUpload: async () => {
    const { answer, parts } = await uploadAllParts(tenant, binaryFile(100));
    return {
      path: `/v1/storage/multipart-uploads/${answer.id}/complete`,
      body: { parts },
      other: { body: { parts: [{ partNumber: 1, etag: '0'.repeat(32) }] } },
    };
  },
  createTranscode: async () => {
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    return {
      path: '/v1/transcodes',
      body: { fullPath: source.fullPath, preset: 'ogg_opus' },
      other: { body: { fullPath: source.fullPath, preset: 'wav' } },
    };
  },
  cancelTranscode: async () => {
    const job = await seedJob(tenant.companyId, 'pending');
    const other = await seedJob(tenant.companyId, 'pending');
    return {
      path: `/v1/transcodes/${job.jobId}/cancel`,
      body: undefined,
      other: { path: `/v1/transcodes/${other.jobId}/cancel` },
    };
  },
  retryTranscode: async () => {
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const job = await seedJob(tenant.companyId, 'failed', { source });
    const other = await seedJob(tenant.companyId, 'failed', { source });
    return {
      path: `/v1/transcodes/${job.jobId}/retry`,
      body: undefined,
      other: { path: `/v1/transcodes/${other.jobId}/retry` },
    };
  },
  createTranscription: async () => {
    const source = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    const other = await storeSource(tenant.companyId, 'tone', { seconds: 1 });
    return {
      path: '/v1/transcriptions',
      body: { fullPath: source.fullPath },
      other: { body: { fullPath: other.fullPath } },
    };
  },
  cancelWorkflowRun: async () => {
    const id = `wf-${Math.random().toString(36).slice(2, 8)}`;
    // An async run whose one step waits on a server that never answers: it stays unfinished until canceled.
    await savedWorkflow(tenant.companyId, {
      id,
      name: 'Held',
      steps: [{ id: 'wait', action: 'actions/http/request', with: { method: 'GET', url: holding.url } }],
    });
    const start = async () => {
      const res = await call('POST', `/v1/workflows/${id}/run`, {
        headers: headers(),
        body: { mode: 'async' },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      return String(res.json.runId);
    };
    const [runId, otherRunId] = [await start(), await start()];
    return {
      path: `/v1/workflows/${id}/runs/${runId}/cancel`,
      body: undefined,
      other: { path: `/v1/workflows/${id}/runs/${otherRunId}/cancel` },
    };
  },
  runWorkflow: async () => {
    const id = `wf-${Math.random().toString(36).slice(2, 8)}`;
    await savedWorkflow(tenant.companyId, {
      id,
      name: 'Note',
      steps: [
        {
          id: 'note',
          action: 'actions/dynadata/create',
          with: { type: 'contacts', item: { name: '{{ input.name }}' } },
        },
      ],
      return: { id: '{{ steps.note.output._id }}' },
    });
    return {
      path: `/v1/workflows/${id}/run`,
      body: { input: { name: 'Ada' } },
      other: { body: { input: { name: 'Grace' } } },
    };
  },
  rerunWorkflowRun: async () => {
    const id = `wf-${Math.random().toString(36).slice(2, 8)}`;
    await savedWorkflow(tenant.companyId, {
      id,
      name: 'Again',
      steps: [
        { id: 'note', action: 'actions/dynadata/create', with: { type: 'contacts', item: { name: 'Bo' } } },
      ],
    });
    const first = await call('POST', `/v1/workflows/${id}/run`, { headers: headers(), body: {} });
    expect(first.status).toBe(200);
    return {
      path: `/v1/workflows/${id}/runs/${String(first.json.runId)}/rerun`,
      body: { version: 'same' },
      other: { body: { version: 'latest' } },
    };
  },
};

const REPEATABLE_CASES: Record<string, () => Case | Promise<Case>> = {
  listDynadataItems: () => ({ path: '/v1/dynadata/type/contacts/list', body: { limit: 5 }, other: {} }),
  validateDynadataItem: () => ({
    path: '/v1/dynadata/type/contacts/validate',
    body: { name: 'Ada' },
    other: {},
  }),
  rewriteSpokenText: () => ({ path: '/v1/spoken-text', body: { markdown: '# Hi' }, other: {} }),
  createMultipartPartUrls: async () => {
    const { answer } = await uploadAllParts(tenant, binaryFile(100));
    return {
      path: `/v1/storage/multipart-uploads/${answer.id}/part-urls`,
      body: { parts: [{ partNumber: 1 }] },
      other: {},
    };
  },
};

const posts = (ROUTES as readonly RouteDefinition[]).filter((r) => r.method === 'POST' && !r.planned);
const routeOf = (op: string): RouteDefinition => posts.find((r) => r.operationId === op) as RouteDefinition;
const byKind = (kind: string) => posts.filter((r) => r.idempotency === kind).map((r) => r.operationId);

beforeAll(async () => {
  tenant = await createTenant();
  receiver = await startReceiver();
  holding = await startHolding();
});
afterAll(() => {
  holding.close();
  return receiver.close();
});

describe('Idempotency-Key on every POST', () => {
  it('every POST of the route table says what it does with the key, and has a case here', () => {
    for (const route of posts) expect(route.idempotency, route.operationId).toBeDefined();
    expect(byKind('keyed').sort()).toEqual(Object.keys(KEYED_CASES).sort());
    expect(byKind('repeatable').sort()).toEqual(Object.keys(REPEATABLE_CASES).sort());
    expect(byKind('refused')).toEqual(['mcp']);
  });

  it.each(byKind('keyed'))(
    '%s replays its first answer for the same key and refuses another body',
    async (op) => {
      const prepare = KEYED_CASES[op];
      if (!prepare) throw new Error(`no case for ${op}`);
      const { path, body, other } = await prepare();
      const key = { ...headers(), 'idempotency-key': unique() };
      const first = await call('POST', path, { headers: key, body });
      expect(first.status, JSON.stringify(first.json)).toBeLessThan(300);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await call('POST', path, { headers: key, body });
      expect(again.status).toBe(first.status);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      // Members the route shows once (a signing secret) are null in a replay; the rest is the first answer.
      const shownOnce = Object.fromEntries((routeOf(op).shownOnce ?? []).map((name) => [name, null]));
      expect(again.json).toEqual({ ...first.json, ...shownOnce });
      const refused = await call('POST', other.path ?? path, { headers: key, body: other.body ?? body });
      expectProblem(refused, 422, 'idempotency_key_reused');
    },
  );

  it.each(byKind('repeatable'))('%s accepts the key and answers as without it', async (op) => {
    const prepare = REPEATABLE_CASES[op];
    if (!prepare) throw new Error(`no case for ${op}`);
    const { path, body } = await prepare();
    const key = { ...headers(), 'idempotency-key': unique() };
    const first = await call('POST', path, { headers: key, body });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const again = await call('POST', path, { headers: key, body });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('the MCP route refuses the key rather than ignore it', async () => {
    const res = await call('POST', '/v1/mcp', {
      headers: {
        ...headers(),
        'idempotency-key': unique(),
        accept: 'application/json, text/event-stream',
      },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expectProblem(res, 400, 'idempotency_key_not_supported');
  });
});
