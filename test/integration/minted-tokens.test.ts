import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_CACHE_TTL_SECONDS } from './local-stack-process';
import { everythingStored } from './stored-text';
import { call, createTenant, expectProblem, revokeKey, runAdmin } from './support';
import { eventually, startReceiver } from './webhook-receiver';
import { getRun, type RunBody, runWorkflow, savedWorkflow, waitForRun } from './workflow-support';

const { createApiKey } = await import('../../functions/shared/data/api-keys');

/** Anything shaped like a compact JWS: three base64url segments, the first a JSON header. */
const JWT_SHAPED = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/;

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

/** Runs a workflow with a token as the credential. */
const runWithToken = (token: string, id: string) =>
  call('POST', `/v1/workflows/${id}/run`, { headers: { 'x-jwt-token': token }, body: {} });

const afterCacheWindow = () => new Promise((r) => setTimeout(r, AUTHORIZER_CACHE_TTL_SECONDS * 1000 + 300));

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const minting = {
  id: 'mint',
  name: 'Mint a token',
  steps: [
    {
      id: 'token',
      action: 'actions/security/auth/jwt/generate',
      with: { dur: 600, advanced: true, scopes: ['usage:read'] },
    },
    // A long output (stored as an object of the company) that quotes the token.
    {
      id: 'quote',
      action: 'actions/speech/spoken-text',
      with: { markdown: `Token: {{ steps.token.output.token }}. ${'A filler sentence. '.repeat(300)}` },
    },
  ],
  return: { token: '{{ steps.token.output.token }}', bearer: 'Bearer {{ steps.token.output.token }}' },
};

describe('minted tokens', () => {
  it('reach the caller of a sync run once, and nothing durable: run, step outputs, events, deliveries, table, bucket', {
    timeout: 60_000,
  }, async () => {
    const t = await createTenant({ plan: 'starter' });
    const path = `/mint-${Math.random().toString(36).slice(2)}`;
    const endpoint = await call('POST', '/v1/webhooks', {
      headers: { 'x-api-key': t.apiKey },
      body: { url: `${receiver.base}${path}`, events: ['workflow_run.finished'] },
    });
    expect(endpoint.status).toBe(201);
    await savedWorkflow(t.companyId, minting);

    const answered = await runWorkflow(
      t.apiKey,
      'mint',
      { includeStepOutputs: true },
      { 'idempotency-key': 'mint-1' },
    );
    expect(answered.status, JSON.stringify(answered.json)).toBe(200);
    const run = answered.json as unknown as RunBody;
    const token = String(run.result?.token);
    expect(token).toMatch(JWT_SHAPED);
    expect(run.result?.bearer).toBe(`Bearer ${token}`);
    expect(run.stepOutputs?.find((s) => s.step === 'token')?.output).toMatchObject({ token });
    expect((await call('GET', '/v1/usage', { headers: { 'x-jwt-token': token } })).status).toBe(200);

    // The same request again (an idempotent replay) answers the stored run: the token was shown once.
    const replay = await runWorkflow(
      t.apiKey,
      'mint',
      { includeStepOutputs: true },
      { 'idempotency-key': 'mint-1' },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(replay.json)).not.toMatch(JWT_SHAPED);
    const standIn = (replay.json as unknown as RunBody).result?.token;
    expect(standIn).toEqual({ redacted: true, jti: claimsOf(token).jti, expiresAt: expect.any(String) });
    expect((replay.json as unknown as RunBody).result?.bearer).toBe('Bearer [redacted]');

    // A read-only key reads the run, its step outputs and the events: no token anywhere.
    const reader = await createApiKey(
      t.companyId,
      { name: 'reader', scopes: ['workflows:read', 'webhooks:read'] },
      new Date(),
    );
    const read = await getRun(reader.key, 'mint', run.runId, '?includeStepOutputs=true');
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.json)).not.toMatch(JWT_SHAPED);
    expect((read.json.run as RunBody).result?.token).toEqual(standIn);
    const events = await call('GET', '/v1/events', { headers: { 'x-api-key': reader.key } });
    expect(events.status).toBe(200);
    expect(JSON.stringify(events.json)).toContain(run.runId);
    expect(JSON.stringify(events.json)).not.toMatch(JWT_SHAPED);
    const delivered = await eventually(
      () => receiver.of(path),
      (r) => r.length > 0,
      30_000,
    );
    expect(delivered.length).toBeGreaterThan(0);
    for (const d of delivered) expect(d.body).not.toMatch(JWT_SHAPED);

    // Nothing the platform keeps holds it: every table item and every object of the company.
    const stored = await everythingStored(t.companyId);
    expect(
      stored.filter((text) => text.includes(t.companyId) || text.includes('Token')).length,
    ).toBeGreaterThan(0);
    expect(stored.filter((text) => text.includes(token))).toEqual([]);
  });

  it("passed to another run as input, reach that run's steps and nothing it stores", async () => {
    const t = await createTenant();
    const minted = await runAdmin('jwt', 'mint', '--company', t.companyId, '--json');
    const { token } = JSON.parse(minted.out) as { token: string };
    await savedWorkflow(t.companyId, {
      id: 'echo',
      name: 'Echo',
      input: { type: 'object', properties: { t: { type: 'string' } } },
      steps: [{ id: 'say', action: 'actions/speech/spoken-text', with: { markdown: 'Token {{ input.t }}' } }],
      return: { t: '{{ input.t }}' },
    });
    const run = await runWorkflow(t.apiKey, 'echo', { input: { t: token }, includeStepOutputs: true });
    expect(run.status).toBe(200);
    expect((run.json.result as { t: string }).t).toBe(token);
    const read = await getRun(t.apiKey, 'echo', String(run.json.runId), '?includeStepOutputs=true');
    expect(JSON.stringify(read.json)).not.toContain(token);
    expect((await everythingStored(t.companyId)).filter((text) => text.includes(token))).toEqual([]);
  });

  it('are kept sealed by an async run for its later steps, across its turns, and stored nowhere readable', async () => {
    const t = await createTenant();
    // The target fails the first call: the retry waits, so the second attempt runs in a later turn of the
    // run, which opens the kept token again.
    const seen: string[] = [];
    const target = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      res.writeHead(seen.length === 1 ? 503 : 200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/agent`;
      await savedWorkflow(t.companyId, {
        id: 'agent',
        name: 'Agent',
        steps: [
          minting.steps[0],
          {
            id: 'call',
            action: 'actions/http/request',
            with: { method: 'GET', url, headers: { authorization: 'Bearer {{ steps.token.output.token }}' } },
            retry: { maxAttempts: 3, backoffSeconds: 2, on: ['http_5xx'] },
          },
        ],
        return: { token: '{{ steps.token.output.token }}' },
      });
      const accepted = await runWorkflow(t.apiKey, 'agent', { mode: 'async', includeStepOutputs: true });
      expect(accepted.status).toBe(202);
      const run = await waitForRun(t.apiKey, 'agent', String(accepted.json.runId));
      expect(run.ok, JSON.stringify(run.failedSteps)).toBe(true);
      expect(seen).toHaveLength(2);
      const [first, second] = seen;
      expect(first).toMatch(/^Bearer eyJ/);
      expect(second).toBe(first);
      const token = String(first).slice('Bearer '.length);
      // A real token of the run's company, within its scopes.
      expect((await call('GET', '/v1/usage', { headers: { 'x-jwt-token': token } })).status).toBe(200);
      expect(run.result).toEqual({ token: expect.objectContaining({ redacted: true }) });
      const read = await getRun(t.apiKey, 'agent', String(accepted.json.runId), '?includeStepOutputs=true');
      expect(JSON.stringify(read.json)).not.toContain(token);
      expect((await everythingStored(t.companyId)).filter((text) => text.includes(token))).toEqual([]);
    } finally {
      await new Promise<void>((r) => target.close(() => r()));
    }
  });
});

describe('derived tokens', () => {
  const mintFor = async (companyId: string, extra: string[] = []) => {
    const minted = await runAdmin(
      'jwt',
      'mint',
      '--company',
      companyId,
      '--advanced',
      '--scopes',
      'workflows:run,usage:read,company:read',
      ...extra,
      '--json',
    );
    expect(minted.code, minted.err).toBe(0);
    return JSON.parse(minted.out) as { token: string; jti: string; src: string; expiresAt: string };
  };
  const deriving = {
    id: 'derive',
    name: 'Derive',
    steps: [
      {
        id: 'token',
        action: 'actions/security/auth/jwt/generate',
        with: { dur: 3600, advanced: true, scopes: ['usage:read'] },
      },
    ],
    return: { token: '{{ steps.token.output.token }}' },
  };

  it("inherit the caller's ips and never outlive it; an explicit ips outside is refused", async () => {
    const t = await createTenant();
    await savedWorkflow(t.companyId, deriving);
    const caller = await mintFor(t.companyId, ['--ips', '127.0.0.1', '--dur', '120']);
    const run = await runWithToken(caller.token, 'derive');
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    const derived = claimsOf(String((run.json.result as { token: string }).token));
    const parent = claimsOf(caller.token);
    expect(derived.ips).toEqual(['127.0.0.1']);
    expect(derived.exp).toBeLessThanOrEqual(Number(parent.exp));
    expect(derived.src).toBe(caller.src);
    expect(caller.src).toBe(`jti:${caller.jti}`);

    await savedWorkflow(t.companyId, {
      ...deriving,
      id: 'wider',
      steps: [{ ...deriving.steps[0], with: { ips: ['0.0.0.0/0'] } }],
    });
    const wider = await runWithToken(caller.token, 'wider');
    expect(wider.json.failedSteps).toEqual([
      { step: 'token', code: 'jwt_ips_exceed_caller', userMessage: expect.any(String) },
    ]);
  });

  it('end with the API key they come from, within the authorizer window', async () => {
    const t = await createTenant();
    await savedWorkflow(t.companyId, deriving);
    const run = await runWorkflow(t.apiKey, 'derive');
    const token = String((run.json.result as { token: string }).token);
    expect(claimsOf(token).src).toBe(t.keyId);
    expect((await call('GET', '/v1/usage', { headers: { 'x-jwt-token': token } })).status).toBe(200);
    await revokeKey(t.companyId, t.keyId);
    await afterCacheWindow();
    expectProblem(await call('GET', '/v1/usage', { headers: { 'x-jwt-token': token } }), 401, 'unauthorized');
  });

  it('end when a token between them and their root is revoked, the root itself unharmed', async () => {
    const t = await createTenant();
    await savedWorkflow(t.companyId, {
      id: 'relay',
      name: 'Relay',
      steps: [
        {
          id: 'token',
          action: 'actions/security/auth/jwt/generate',
          with: { advanced: true, scopes: ['workflows:run', 'usage:read'] },
        },
      ],
      return: { token: '{{ steps.token.output.token }}' },
    });
    const first = String(((await runWorkflow(t.apiKey, 'relay')).json.result as { token: string }).token);
    const second = String(((await runWithToken(first, 'relay')).json.result as { token: string }).token);
    expect(claimsOf(second)).toMatchObject({ src: t.keyId, anc: [claimsOf(first).jti] });
    const third = String(((await runWithToken(second, 'relay')).json.result as { token: string }).token);
    expect(claimsOf(third).anc).toEqual([claimsOf(first).jti, claimsOf(second).jti]);
    const revoked = await runAdmin(
      'jwt',
      'revoke',
      '--company',
      t.companyId,
      '--jti',
      String(claimsOf(second).jti),
    );
    expect(revoked.code, revoked.err).toBe(0);
    await afterCacheWindow();
    for (const token of [second, third]) {
      expectProblem(
        await call('GET', '/v1/usage', { headers: { 'x-jwt-token': token } }),
        401,
        'unauthorized',
      );
    }
    expect((await call('GET', '/v1/usage', { headers: { 'x-jwt-token': first } })).status).toBe(200);
    expect((await call('GET', '/v1/usage', { headers: { 'x-api-key': t.apiKey } })).status).toBe(200);
  });

  it('end when the operator revokes their jti, or the root they were derived from', async () => {
    const t = await createTenant();
    await savedWorkflow(t.companyId, deriving);
    const root = await mintFor(t.companyId);
    const run = await runWithToken(root.token, 'derive');
    const child = String((run.json.result as { token: string }).token);
    const other = await mintFor(t.companyId);
    for (const token of [root.token, child, other.token]) {
      expect((await call('GET', '/v1/usage', { headers: { 'x-jwt-token': token } })).status).toBe(200);
    }
    const revoked = await runAdmin('jwt', 'revoke', '--company', t.companyId, '--jti', root.jti, '--json');
    expect(revoked.code, revoked.err).toBe(0);
    expect(JSON.parse(revoked.out)).toMatchObject({ jti: root.jti, expiresAt: root.expiresAt });
    await afterCacheWindow();
    expectProblem(
      await call('GET', '/v1/usage', { headers: { 'x-jwt-token': root.token } }),
      401,
      'unauthorized',
    );
    expectProblem(await call('GET', '/v1/usage', { headers: { 'x-jwt-token': child } }), 401, 'unauthorized');
    expect((await call('GET', '/v1/usage', { headers: { 'x-jwt-token': other.token } })).status).toBe(200);

    // A jti the company never minted (another company's, or made up) is not found.
    const stranger = await createTenant();
    const unknown = await runAdmin('jwt', 'revoke', '--company', stranger.companyId, '--jti', other.jti);
    expect(unknown.code).not.toBe(0);
  });
});
