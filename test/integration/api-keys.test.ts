import { beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_CACHE_TTL_SECONDS } from './local-stack-process';
import { call, createTenant, expectProblem, runAdmin } from './support';

/**
 * `/v1/keys`: a company creates, lists, reads and revokes its own API keys (scope `keys:admin`), each key no
 * wider than the credential that creates it; the operator CLI goes through the same functions.
 */
type Tenant = Awaited<ReturnType<typeof createTenant>>;
type Key = {
  id: string;
  name: string;
  scopes: string[];
  status: string;
  expiresAt: string | null;
  ips: string[] | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdBy: string;
};

let admin: Tenant;
let other: Tenant;
const as = (apiKey: string) => ({ 'x-api-key': apiKey });
const afterCacheWindow = () => new Promise((r) => setTimeout(r, AUTHORIZER_CACHE_TTL_SECONDS * 1000 + 300));

const create = (apiKey: string, body: unknown, idempotencyKey?: string) =>
  call('POST', '/v1/keys', {
    headers: { ...as(apiKey), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body,
  });

beforeAll(async () => {
  admin = await createTenant();
  other = await createTenant();
});

describe('API keys managed by the company', () => {
  it('creates a restricted key whose secret is shown once and which is refused outside its scopes', async () => {
    const created = await create(admin.apiKey, { name: 'reports', scopes: ['usage:read'] }, 'reports-key-1');
    expect(created.status).toBe(201);
    const { key, secret } = created.json as { key: Key; secret: string };
    expect(secret).toMatch(/^sk-[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({
      name: 'reports',
      scopes: ['usage:read'],
      status: 'active',
      expiresAt: null,
      ips: null,
      revokedAt: null,
      createdBy: admin.keyId,
    });
    expect(JSON.stringify(key)).not.toContain(secret);

    expect((await call('GET', '/v1/usage', { headers: as(secret) })).status).toBe(200);
    expectProblem(await call('GET', '/v1/self', { headers: as(secret) }), 403, 'insufficient_scope');
    expectProblem(await call('GET', '/v1/keys', { headers: as(secret) }), 403, 'insufficient_scope');

    // A replay answers the key as created without the secret, which is never stored.
    const replay = await create(admin.apiKey, { name: 'reports', scopes: ['usage:read'] }, 'reports-key-1');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toMatchObject({ key: { id: key.id }, secret: null });
  });

  it('lists and reads keys with lastUsedAt, never a secret, and pages them', async () => {
    const tenant = await createTenant();
    const made: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const res = await create(tenant.apiKey, { name, scopes: ['company:read'] });
      made.push((res.json.key as Key).id);
    }
    const first = await call('GET', '/v1/keys?limit=2', { headers: as(tenant.apiKey) });
    expect(first.status).toBe(200);
    const page1 = first.json.keys as Key[];
    expect(page1.map((k) => k.id)).toEqual([tenant.keyId, made[0]]);
    // The caller's own key authenticated requests: its use is noted.
    expect(page1[0]?.lastUsedAt).not.toBeNull();
    expect(page1[1]?.lastUsedAt).toBeNull();
    const second = await call(
      'GET',
      `/v1/keys?limit=2&cursor=${encodeURIComponent(String(first.json.nextCursor))}`,
      {
        headers: as(tenant.apiKey),
      },
    );
    expect((second.json.keys as Key[]).map((k) => k.id)).toEqual([made[1], made[2]]);
    expect(second.json.nextCursor).toBeNull();
    expect(JSON.stringify([first.json, second.json])).not.toMatch(/sk-[A-Za-z0-9_-]{43}/);

    const one = await call('GET', `/v1/keys/${made[1]}`, { headers: as(tenant.apiKey) });
    expect(one.status).toBe(200);
    expect(one.json.key).toMatchObject({ id: made[1], name: 'b' });
    expectProblem(
      await call('GET', '/v1/keys?cursor=not-a-cursor', { headers: as(tenant.apiKey) }),
      400,
      'validation_failed',
    );
  });

  it('never makes a key wider than its creator: scopes, addresses and expiry', async () => {
    const narrow = (await create(admin.apiKey, { name: 'narrow', scopes: ['keys:admin', 'usage:read'] })).json
      .secret as string;
    const wider = await create(narrow, { name: 'wider', scopes: ['usage:read', 'dynadata:write'] });
    expectProblem(wider, 403, 'api_key_scopes_exceed_caller');
    expect(wider.json.scopes).toEqual(['dynadata:write']);

    const local = await create(admin.apiKey, {
      name: 'local',
      scopes: ['keys:admin', 'usage:read'],
      ips: ['127.0.0.0/8', '::1'],
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(local.status).toBe(201);
    const localSecret = local.json.secret as string;
    expectProblem(
      await create(localSecret, { name: 'anywhere', scopes: ['usage:read'], ips: ['0.0.0.0/0'] }),
      403,
      'api_key_ips_exceed_caller',
    );
    const later = await create(localSecret, {
      name: 'later',
      scopes: ['usage:read'],
      expiresAt: new Date(Date.now() + 7_200_000).toISOString(),
    });
    expectProblem(later, 400, 'validation_failed');
    expect(later.json.errors).toEqual([expect.objectContaining({ pointer: '/body/expiresAt' })]);
    // Left out, both are inherited.
    const inherited = await create(localSecret, { name: 'inherited', scopes: ['usage:read'] });
    expect(inherited.status).toBe(201);
    const heir = inherited.json.key as Key;
    expect(heir.ips).toEqual(['127.0.0.0/8', '::1']);
    // The caller's expiry travels in whole seconds.
    const callerExpiry = Date.parse((local.json.key as Key).expiresAt ?? '');
    expect(callerExpiry - Date.parse(heir.expiresAt ?? '')).toBeGreaterThanOrEqual(0);
    expect(callerExpiry - Date.parse(heir.expiresAt ?? '')).toBeLessThan(1000);
  });

  it('refuses a key from an address outside its list, and after its expiry', async () => {
    const elsewhere = await create(admin.apiKey, {
      name: 'elsewhere',
      scopes: ['usage:read'],
      ips: ['192.0.2.0/24'],
    });
    const res = await call('GET', '/v1/usage', { headers: as(elsewhere.json.secret as string) });
    expect(res.status).toBe(401);

    const brief = await create(admin.apiKey, {
      name: 'brief',
      scopes: ['usage:read'],
      expiresAt: new Date(Date.now() + 2_000).toISOString(),
    });
    const secret = brief.json.secret as string;
    expect((await call('GET', '/v1/usage', { headers: as(secret) })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await call('GET', '/v1/usage', { headers: as(secret) })).status).toBe(401);
    const listed = await call('GET', `/v1/keys/${(brief.json.key as Key).id}`, { headers: as(admin.apiKey) });
    expect(listed.json.key).toMatchObject({ status: 'expired' });
  });

  it('refuses invalid keys with a pointer per field', async () => {
    const res = await create(admin.apiKey, {
      name: '',
      scopes: ['usage:read', 'usage:read', 'root'],
      ips: ['10.0.0.0/33'],
      expiresAt: 'tomorrow',
    });
    expectProblem(res, 400, 'validation_failed');
    const pointers = (res.json.errors as { pointer: string }[]).map((e) => e.pointer).sort();
    expect(pointers).toEqual(
      expect.arrayContaining(['/body/name', '/body/ips/0', '/body/expiresAt', '/body/scopes/2']),
    );
    const past = await create(admin.apiKey, {
      name: 'past',
      scopes: ['usage:read'],
      expiresAt: '2020-01-01T00:00:00.000Z',
    });
    expectProblem(past, 400, 'validation_failed');
  });

  it('revokes a key: it is refused after the cache window, stays listed as revoked, and a repeat answers it', async () => {
    const made = await create(admin.apiKey, { name: 'leaked', scopes: ['usage:read'] });
    const { key, secret } = made.json as { key: Key; secret: string };
    expect((await call('GET', '/v1/usage', { headers: as(secret) })).status).toBe(200);
    const revoked = await call('DELETE', `/v1/keys/${key.id}`, { headers: as(admin.apiKey) });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ deleted: true, id: key.id, key: { id: key.id, status: 'revoked' } });
    await afterCacheWindow();
    expect((await call('GET', '/v1/usage', { headers: as(secret) })).status).toBe(401);
    const again = await call('DELETE', `/v1/keys/${key.id}`, { headers: as(admin.apiKey) });
    expect(again.json).toMatchObject({ key: { revokedAt: (revoked.json.key as Key).revokedAt } });
  });

  it("keeps each company's keys its own", async () => {
    const mine = (await create(admin.apiKey, { name: 'mine', scopes: ['usage:read'] })).json.key as Key;
    expectProblem(await call('GET', `/v1/keys/${mine.id}`, { headers: as(other.apiKey) }), 404, 'not_found');
    expectProblem(
      await call('DELETE', `/v1/keys/${mine.id}`, { headers: as(other.apiKey) }),
      404,
      'not_found',
    );
    const theirs = (await call('GET', '/v1/keys', { headers: as(other.apiKey) })).json.keys as Key[];
    expect(theirs.map((k) => k.id)).toEqual([other.keyId]);
    const still = await call('GET', `/v1/keys/${mine.id}`, { headers: as(admin.apiKey) });
    expect(still.json.key).toMatchObject({ status: 'active' });
  });

  it('holds the limit of active keys under concurrent creations', async () => {
    const { MAX_ACTIVE_API_KEYS } = await import('../../functions/shared/types/api-keys');
    const tenant = await createTenant();
    // The tenant's own key is the first; fill all but two, then ask for five at once.
    const { createApiKey } = await import('../../functions/shared/data/api-keys');
    for (let i = 1; i < MAX_ACTIVE_API_KEYS - 2; i += 1)
      await createApiKey(tenant.companyId, { name: `k${i}`, scopes: ['usage:read'] }, new Date());
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => create(tenant.apiKey, { name: `burst${i}`, scopes: ['usage:read'] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 403, 403, 403]);
    expectProblem(
      results.find((r) => r.status === 403) as (typeof results)[number],
      403,
      'api_key_limit_reached',
    );
    // A revoked key frees its place.
    const made = results.find((r) => r.status === 201);
    const oneId = (made?.json.key as Key | undefined)?.id;
    await call('DELETE', `/v1/keys/${oneId}`, { headers: as(tenant.apiKey) });
    expect((await create(tenant.apiKey, { name: 'after', scopes: ['usage:read'] })).status).toBe(201);
  });

  it('is what the operator CLI creates, lists and revokes', async () => {
    const made = await runAdmin(
      'keys',
      'create',
      '--company',
      admin.companyId,
      '--name',
      'ops',
      '--scopes',
      'usage:read',
      '--ips',
      '127.0.0.1',
      '--json',
    );
    expect(made.code, made.err).toBe(0);
    const created = JSON.parse(made.out) as Key & { key: string };
    expect(created).toMatchObject({ name: 'ops', ips: ['127.0.0.1'], createdBy: 'operator' });
    const viaApi = await call('GET', `/v1/keys/${created.id}`, { headers: as(admin.apiKey) });
    expect(viaApi.json.key).toMatchObject({ id: created.id, createdBy: 'operator' });
    const bad = await runAdmin('keys', 'create', '--company', admin.companyId, '--ips', 'nowhere');
    expect(bad.code).toBe(2);
    const revoked = await runAdmin(
      'keys',
      'revoke',
      '--company',
      admin.companyId,
      '--key-id',
      created.id,
      '--json',
    );
    expect(revoked.code, revoked.err).toBe(0);
    expect(JSON.parse(revoked.out)).toMatchObject({ id: created.id, status: 'revoked' });
  });
});
