import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createContact, createTenant, expectProblem } from './support';
import { seedJob } from './transcode-support';
import { startReceiver } from './webhook-receiver';

/**
 * Conditional requests: single-resource reads answer an `ETag` and 304 to `If-None-Match` with it; updates and
 * deletes honour `If-Match` (412 `precondition_failed` on another tag, and nothing changes).
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
let tenant: Tenant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const headers = (extra: Record<string, string> = {}) => ({ 'x-api-key': tenant.apiKey, ...extra });

beforeAll(async () => {
  tenant = await createTenant();
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('ETag and If-None-Match', () => {
  it('an item read again with its tag is 304 without a body; after a change, 200 with a new tag', async () => {
    const id = await createContact(headers(), 'Ada');
    const path = `/v1/dynadata/type/contacts/item/${id}`;
    const first = await call('GET', path, { headers: headers() });
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const again = await call('GET', path, { headers: headers({ 'if-none-match': etag }) });
    expect(again.status).toBe(304);
    expect(again.json).toEqual({});
    expect(again.headers.get('etag')).toBe(etag);
    const weak = await call('GET', path, { headers: headers({ 'if-none-match': `"x", W/${etag}` }) });
    expect(weak.status).toBe(304);
    await call('POST', '/v1/dynadata/type/contacts/update', {
      headers: headers(),
      body: { _id: id, name: 'Ada L' },
    });
    const changed = await call('GET', path, { headers: headers({ 'if-none-match': etag }) });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('jobs and webhook endpoints answer tags too', async () => {
    const job = await seedJob(tenant.companyId, 'pending');
    const endpoint = await call('POST', '/v1/webhooks', {
      headers: headers(),
      body: { url: `${receiver.base}/tag`, events: ['*'] },
    });
    const endpointId = String((endpoint.json.endpoint as { id: string }).id);
    for (const path of [`/v1/transcodes/${job.jobId}`, `/v1/webhooks/${endpointId}`]) {
      const first = await call('GET', path, { headers: headers() });
      const etag = first.headers.get('etag');
      expect(etag, path).toBeTruthy();
      expect((await call('GET', path, { headers: headers({ 'if-none-match': etag ?? '' }) })).status).toBe(
        304,
      );
    }
  });
});

describe('If-Match', () => {
  it('a delete with another tag is 412 and deletes nothing; with the current tag it deletes', async () => {
    const id = await createContact(headers(), 'Grace');
    const path = `/v1/dynadata/type/contacts/item/${id}`;
    const etag = (await call('GET', path, { headers: headers() })).headers.get('etag') ?? '';
    const refused = await call('DELETE', path, { headers: headers({ 'if-match': '"not-the-tag"' }) });
    expectProblem(refused, 412, 'precondition_failed');
    expect((await call('GET', path, { headers: headers() })).status).toBe(200);
    const weak = await call('DELETE', path, { headers: headers({ 'if-match': `W/${etag}` }) });
    expectProblem(weak, 412, 'precondition_failed');
    const deleted = await call('DELETE', path, { headers: headers({ 'if-match': etag }) });
    expect(deleted.status).toBe(200);
    expect((await call('GET', path, { headers: headers() })).status).toBe(404);
  });

  it('an update with a stale tag is 412 and changes nothing; with the current tag it applies', async () => {
    const id = await createContact(headers(), 'Hedy');
    const path = `/v1/dynadata/type/contacts/item/${id}`;
    const stale = (await call('GET', path, { headers: headers() })).headers.get('etag') ?? '';
    await call('POST', '/v1/dynadata/type/contacts/update', {
      headers: headers(),
      body: { _id: id, name: 'Hedy L' },
    });
    const refused = await call('POST', '/v1/dynadata/type/contacts/update', {
      headers: headers({ 'if-match': stale }),
      body: { _id: id, name: 'Someone else' },
    });
    expectProblem(refused, 412, 'precondition_failed');
    const current = await call('GET', path, { headers: headers() });
    expect(current.json.name).toBe('Hedy L');
    const applied = await call('POST', '/v1/dynadata/type/contacts/update', {
      headers: headers({ 'if-match': current.headers.get('etag') ?? '' }),
      body: { _id: id, name: 'Hedy Lamarr' },
    });
    expect(applied.status).toBe(200);
    expect(applied.json.name).toBe('Hedy Lamarr');
  });

  it('a webhook endpoint is deleted only under its current tag', async () => {
    const created = await call('POST', '/v1/webhooks', {
      headers: headers(),
      body: { url: `${receiver.base}/match`, events: ['*'] },
    });
    const id = String((created.json.endpoint as { id: string }).id);
    const refused = await call('DELETE', `/v1/webhooks/${id}`, {
      headers: headers({ 'if-match': '"other"' }),
    });
    expectProblem(refused, 412, 'precondition_failed');
    const etag = (await call('GET', `/v1/webhooks/${id}`, { headers: headers() })).headers.get('etag') ?? '';
    expect(
      (await call('DELETE', `/v1/webhooks/${id}`, { headers: headers({ 'if-match': etag }) })).status,
    ).toBe(200);
  });
});

/**
 * Every write that answers a resource with an `ETag` carries the tag its read answers (docs/openapi.md,
 * Conventions, rule 4): each row writes, and names the read of what it wrote.
 */
const WRITES: readonly {
  operation: string;
  write: () => Promise<{ res: Awaited<ReturnType<typeof call>>; read: string }>;
}[] = [
  {
    operation: 'createDynadataItem',
    write: async () => {
      const res = await call('POST', '/v1/dynadata/type/contacts/create', {
        headers: headers(),
        body: { name: 'Tagged' },
      });
      return { res, read: `/v1/dynadata/type/contacts/item/${String(res.json._id)}` };
    },
  },
  {
    operation: 'updateDynadataItem',
    write: async () => {
      const id = await createContact(headers(), 'Tag me');
      const res = await call('POST', '/v1/dynadata/type/contacts/update', {
        headers: headers(),
        body: { _id: id, name: 'Tagged' },
      });
      return { res, read: `/v1/dynadata/type/contacts/item/${id}` };
    },
  },
  {
    operation: 'putDynadataType',
    write: async () => ({
      res: await call('PUT', '/v1/dynadata/types/tagged', {
        headers: headers(),
        body: { schema: { type: 'object', properties: { text: { type: 'string', maxLength: 10 } } } },
      }),
      read: '/v1/dynadata/types/tagged',
    }),
  },
  {
    operation: 'putWorkflow',
    write: async () => ({
      res: await call('PUT', '/v1/workflows/tagged', {
        headers: headers(),
        body: {
          name: 'Tagged',
          steps: [{ id: 'say', action: 'actions/speech/spoken-text', with: { markdown: 'Hi' } }],
        },
      }),
      read: '/v1/workflows/tagged',
    }),
  },
  {
    operation: 'putWorkflowSecret',
    write: async () => ({
      res: await call('PUT', '/v1/workflows/secrets/TAGGED', {
        headers: headers(),
        body: { value: 'crm_live_7a1F9c2Qx0ZmT4vB8nL3' },
      }),
      read: '/v1/workflows/secrets/TAGGED',
    }),
  },
  {
    operation: 'createWebhookEndpoint, updateWebhookEndpoint, rotateWebhookSecret',
    write: async () => {
      const created = await call('POST', '/v1/webhooks', {
        headers: headers(),
        body: { url: `${receiver.base}/tagged`, events: ['*'] },
      });
      const id = String((created.json.endpoint as { id: string }).id);
      const read = `/v1/webhooks/${id}`;
      expect(created.headers.get('etag')).toBe(
        (await call('GET', read, { headers: headers() })).headers.get('etag'),
      );
      const patched = await call('PATCH', read, {
        headers: headers({ 'if-match': created.headers.get('etag') ?? '' }),
        body: { enabled: false },
      });
      expect(patched.status, JSON.stringify(patched.json)).toBe(200);
      expect(patched.headers.get('etag')).toBe(
        (await call('GET', read, { headers: headers() })).headers.get('etag'),
      );
      return {
        res: await call('POST', `${read}/rotate-secret`, { headers: headers(), body: {} }),
        read,
      };
    },
  },
  {
    operation: 'putMessageChannel, rotateMessageChannelSecret',
    write: async () => {
      const put = await call('PUT', '/v1/messaging/channel', {
        headers: headers(),
        body: { url: `${receiver.base}/channel` },
      });
      const read = '/v1/messaging/channel';
      expect(put.headers.get('etag')).toBe(
        (await call('GET', read, { headers: headers() })).headers.get('etag'),
      );
      return {
        res: await call('POST', '/v1/messaging/channel/rotate-secret', { headers: headers(), body: {} }),
        read,
      };
    },
  },
  {
    operation: 'cancelTranscode',
    write: async () => {
      const job = await seedJob(tenant.companyId, 'pending');
      return {
        res: await call('POST', `/v1/transcodes/${job.jobId}/cancel`, { headers: headers() }),
        read: `/v1/transcodes/${job.jobId}`,
      };
    },
  },
];

describe('the ETag of a write', () => {
  it.each(WRITES)('$operation answers the tag its read answers', async ({ write }) => {
    const { res, read } = await write();
    expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
    const tag = res.headers.get('etag');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect((await call('GET', read, { headers: headers() })).headers.get('etag')).toBe(tag);
    // A read naming it finds the resource as the write left it.
    expect((await call('GET', read, { headers: headers({ 'if-none-match': tag ?? '' }) })).status).toBe(304);
  });
});
