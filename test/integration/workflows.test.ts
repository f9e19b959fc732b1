import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_SYNC_DEADLINE_MS } from './local-stack-process';
import { call, createTenant, expectProblem, runAdmin } from './support';
import { overrideLimits, storeSource } from './transcode-support';
import {
  getRun,
  putWorkflow,
  type RunBody,
  runWorkflow,
  savedWorkflow,
  startTarget,
  waitForRun,
} from './workflow-support';

let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target.close());

const jwtStep = (id: string, w: Record<string, unknown>, allowFailure?: boolean) => ({
  id,
  action: 'actions/security/auth/jwt/generate',
  with: w,
  ...(allowFailure === undefined ? {} : { allowFailure }),
});

describe('workflow definitions', () => {
  it('saves versions with the CLI, lists, gets and deletes them, and reads them over /v1', async () => {
    const t = await createTenant();
    const doc = { id: 'welcome', name: 'Welcome', steps: [jwtStep('token', {})] };
    expect(await savedWorkflow(t.companyId, doc)).toEqual({ id: 'welcome', version: 1 });
    expect(await savedWorkflow(t.companyId, { ...doc, name: 'Welcome 2' })).toEqual({
      id: 'welcome',
      version: 2,
    });
    const listed = await runAdmin('workflows', 'list', '--company', t.companyId, '--json');
    expect(JSON.parse(listed.out).workflows).toMatchObject([
      { id: 'welcome', version: 2, name: 'Welcome 2' },
    ]);
    const got = await runAdmin('workflows', 'get', '--company', t.companyId, '--id', 'welcome', '--json');
    expect(JSON.parse(got.out)).toMatchObject({ id: 'welcome', version: 2 });
    const api = await call('GET', '/v1/workflows/welcome', { headers: { 'x-api-key': t.apiKey } });
    expect(api.json.workflow).toMatchObject({
      id: 'welcome',
      version: 2,
      steps: [{ id: 'token', allowFailure: false }],
    });
    const list = await call('GET', '/v1/workflows', { headers: { 'x-api-key': t.apiKey } });
    expect(list.json.workflows).toMatchObject([{ id: 'welcome', version: 2, steps: 1 }]);
    const deleted = await runAdmin(
      'workflows',
      'delete',
      '--company',
      t.companyId,
      '--id',
      'welcome',
      '--json',
    );
    expect(deleted.code, deleted.err).toBe(0);
    expectProblem(
      await call('GET', '/v1/workflows/welcome', { headers: { 'x-api-key': t.apiKey } }),
      404,
      'not_found',
    );
    // Saved again after deletion: versions continue, never reused.
    expect(await savedWorkflow(t.companyId, doc)).toEqual({ id: 'welcome', version: 3 });
  });

  it('keeps member names as data and refuses a definition nested too deep with its pointer', async () => {
    const t = await createTenant();
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const refused = await putWorkflow(t.companyId, {
      id: 'deep',
      name: 'Deep',
      steps: [jwtStep('t', {})],
      return: { deep },
    });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.err).errors).toEqual([
      {
        pointer: expect.stringMatching(/^\/return\/deep(\/a)+$/),
        message: expect.stringContaining('32 levels'),
      },
    ]);
    const names = { constructor: 'c', toString: 't', valueOf: { constructor: { name: 'Set' } } };
    await savedWorkflow(t.companyId, {
      id: 'names',
      name: 'Names',
      steps: [jwtStep('t', {})],
      return: names,
    });
    const read = await call('GET', '/v1/workflows/names', { headers: { 'x-api-key': t.apiKey } });
    expect(read.status).toBe(200);
    expect((read.json.workflow as { return: unknown }).return).toEqual(names);
    const run = await runWorkflow(t.apiKey, 'names');
    expect(run.json.result).toEqual(names);
  });

  it('refuses invalid definitions and references with every violation by pointer', async () => {
    const t = await createTenant();
    const res = await putWorkflow(t.companyId, {
      id: 'Bad Id',
      name: '',
      extra: 1,
      input: { type: 'object', properties: { a: { type: 'strin' } } },
      steps: [
        jwtStep('a', { dur: '{{ steps.b.output.x }}' }),
        {
          id: 'b',
          action: 'actions/nope',
          with: { x: '{{ steps.ghost.output }}', y: '{{ code() }}', z: '{{ open' },
        },
        { id: 'a', action: 'actions/security/auth/jwt/generate', allowFailure: 'yes' },
      ],
      return: { t: '{{ input.a }}', u: '{{ run.other }}' },
    });
    expect(res.code).toBe(1);
    const pointers = (JSON.parse(res.err).errors as { pointer: string }[]).map((e) => e.pointer).sort();
    expect(pointers).toEqual(
      [
        '/extra',
        '/id',
        '/input/properties/a/type',
        '/name',
        '/return/u',
        '/steps/0/with/dur',
        '/steps/1/action',
        '/steps/1/with/x',
        '/steps/1/with/y',
        '/steps/1/with/z',
        '/steps/2/allowFailure',
        '/steps/2/id',
      ].sort(),
    );
  });
});

describe('workflow runs', () => {
  it('runs every main action sync: jwt, transcode, dynadata, http, and the token works within its scopes', async () => {
    const t = await createTenant({ plan: 'starter' });
    const source = await storeSource(t.companyId, 'tone', { seconds: 2 });
    await savedWorkflow(t.companyId, {
      id: 'main',
      name: 'Main actions',
      input: { type: 'object', properties: { fullPath: { type: 'string' } }, required: ['fullPath'] },
      steps: [
        jwtStep('token', { dur: 600, advanced: true, scopes: ['usage:read'] }),
        {
          id: 'audio',
          action: 'actions/media/transcode',
          with: { fullPath: '{{ input.fullPath }}', preset: 'ogg_opus' },
        },
        {
          id: 'contact',
          action: 'actions/dynadata/create',
          with: { type: 'contacts', item: { name: 'Run {{ run.id }}' } },
        },
        {
          id: 'read',
          action: 'actions/dynadata/get',
          with: { type: 'contacts', id: '{{ steps.contact.output._id }}' },
        },
        { id: 'list', action: 'actions/dynadata/list', with: { type: 'contacts', limit: 5 } },
        {
          id: 'call',
          action: 'actions/http/request',
          with: {
            method: 'POST',
            url: `${target.url}/json`,
            body: { job: '{{ steps.audio.output.job.id }}' },
          },
        },
        { id: 'spoken', action: 'actions/speech/spoken-text', with: { markdown: '# Done' } },
      ],
      return: {
        token: '{{ steps.token.output.token }}',
        job: '{{ steps.audio.output.job.id }}',
        name: '{{ steps.read.output.name }}',
        echoed: '{{ steps.call.output.body.body }}',
        status: '{{ steps.call.output.status }}',
      },
    });
    const res = await runWorkflow(t.apiKey, 'main', { input: source });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const run = res.json as unknown as RunBody;
    expect(run).toMatchObject({ ok: true, status: 'success', failedSteps: [] });
    expect(run.logs.map((l) => l.status)).toEqual(Array(7).fill('succeeded'));
    const result = run.result as Record<string, string | number>;
    expect(result.name).toBe(`Run ${run.runId}`);
    expect(result.status).toBe(200);
    expect(JSON.parse(String(result.echoed))).toEqual({ job: result.job });
    // The minted token authenticates within its scopes and is refused beyond them.
    const token = String(result.token);
    expect((await call('GET', '/v1/usage', { headers: { 'x-jwt-token': token } })).status).toBe(200);
    expectProblem(
      await call('GET', '/v1/self', { headers: { 'x-jwt-token': token } }),
      403,
      'insufficient_scope',
    );
    // The transcode is the very same job: visible, cancelable and retriable through /v1/transcodes.
    const job = await call('GET', `/v1/transcodes/${result.job}`, { headers: { 'x-api-key': t.apiKey } });
    expect(job.status).toBe(200);
    const cancel = await call('POST', `/v1/transcodes/${result.job}/cancel`, {
      headers: { 'x-api-key': t.apiKey },
    });
    if (cancel.status === 200) {
      const retry = await call('POST', `/v1/transcodes/${result.job}/retry`, {
        headers: { 'x-api-key': t.apiKey },
      });
      expect(retry.status).toBe(202);
    } else {
      expectProblem(cancel, 409, 'transcode_job_not_cancelable');
    }
    // The run reads back the same, with its version, except the token: shown once, kept as a stand-in.
    const read = await getRun(t.apiKey, 'main', run.runId);
    expect(read.json.run).toMatchObject({
      runId: run.runId,
      status: 'success',
      ok: true,
      version: 1,
      result: {
        ...result,
        token: { redacted: true, jti: expect.any(String), expiresAt: expect.any(String) },
      },
    });
    const usage = await call('GET', '/v1/usage', { headers: { 'x-api-key': t.apiKey } });
    const snapshot = usage.json.usage as {
      meters: Record<string, number>;
      computeMs: Record<string, number>;
    };
    expect(snapshot.meters.workflow_runs).toBe(1);
    expect(snapshot.computeMs.workflows).toBeGreaterThan(0);
  });

  it('reports the spec outcomes: handled failures stay success, unhandled make it partial', async () => {
    const t = await createTenant({ scopes: ['workflows:run', 'workflows:read', 'usage:read'] });
    await savedWorkflow(t.companyId, {
      id: 'outcomes',
      name: 'Outcomes',
      steps: [
        jwtStep('noadvanced', { scopes: ['usage:read'] }, true),
        jwtStep('unknown', { advanced: true, scopes: ['nope:read'] }, true),
        jwtStep('wider', { advanced: true, scopes: ['dynadata:write'] }, true),
        jwtStep('plain', {}),
        jwtStep('after', { dur: '{{ steps.noadvanced.output.missing }}' }),
      ],
      return: { plain: '{{ steps.plain.output.token }}', failed: '{{ steps.noadvanced.status }}' },
    });
    const handled = await runWorkflow(t.apiKey, 'outcomes');
    expect(handled.status).toBe(200);
    const run = handled.json as unknown as RunBody;
    expect(run).toMatchObject({ ok: true, status: 'success', error: null });
    expect(run.failedSteps).toEqual([
      {
        step: 'noadvanced',
        code: 'jwt_scopes_require_advanced',
        userMessage: expect.any(String),
        handled: true,
      },
      { step: 'unknown', code: 'jwt_invalid_scopes', userMessage: expect.any(String), handled: true },
      { step: 'wider', code: 'jwt_scopes_exceed_caller', userMessage: expect.any(String), handled: true },
    ]);
    expect(run.result?.failed).toBe('failed');
    // A token minted without scopes authenticates and holds nothing.
    const plain = String(run.result?.plain);
    expectProblem(
      await call('GET', '/v1/usage', { headers: { 'x-jwt-token': plain } }),
      403,
      'insufficient_scope',
    );

    await savedWorkflow(t.companyId, {
      id: 'partial',
      name: 'Partial',
      steps: [
        jwtStep('bad', { scopes: ['usage:read'] }),
        jwtStep('good', {}),
        { id: 'media', action: 'actions/media/transcode', with: { fullPath: 'x', preset: 'wav' } },
      ],
    });
    const partial = (await runWorkflow(t.apiKey, 'partial')).json as unknown as RunBody;
    expect(partial).toMatchObject({ ok: false, status: 'partial', error: { code: 'workflow_steps_failed' } });
    expect(partial.failedSteps.map((f) => [f.step, f.code, f.handled])).toEqual([
      ['bad', 'jwt_scopes_require_advanced', undefined],
      ['media', 'insufficient_scope', undefined],
    ]);
    expect(partial.logs.map((l) => l.status)).toEqual(['failed', 'succeeded', 'failed']);
  });

  it('runs async through the workflow-run queue and keeps step outputs when asked', async () => {
    const t = await createTenant();
    await savedWorkflow(t.companyId, {
      id: 'later',
      name: 'Later',
      input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      steps: [
        { id: 'spoken', action: 'actions/speech/spoken-text', with: { markdown: '{{ input.text }}' } },
        {
          id: 'speech',
          action: 'actions/speech/synthesize',
          with: { text: '{{ steps.spoken.output.text }}', format: 'ogg_opus' },
        },
        {
          id: 'big',
          action: 'actions/http/request',
          with: { method: 'POST', url: `${target.url}/big`, body: 'x'.repeat(6000) },
        },
      ],
      return: { audio: '{{ steps.speech.output.fullPath }}' },
    });
    const invalid = await runWorkflow(t.apiKey, 'later', { mode: 'async', input: { text: 5 } });
    expectProblem(invalid, 400, 'validation_failed');
    expect((invalid.json.errors as { pointer: string }[])[0]?.pointer).toBe('/body/input/text');
    const accepted = await runWorkflow(t.apiKey, 'later', {
      mode: 'async',
      includeStepOutputs: true,
      input: { text: '**Hello** there' },
    });
    expect(accepted.status).toBe(202);
    const runId = String(accepted.json.runId);
    const run = await waitForRun(t.apiKey, 'later', runId);
    expect(run).toMatchObject({ status: 'success', ok: true });
    expect(run.files).toEqual([{ bucket: expect.any(String), fullPath: run.result?.audio }]);
    const withOutputs = await getRun(t.apiKey, 'later', runId, '?includeStepOutputs=true');
    const outputs = (withOutputs.json.run as RunBody).stepOutputs ?? [];
    expect(outputs.map((o) => o.step)).toEqual(['spoken', 'speech', 'big']);
    expect(outputs[0]?.output).toMatchObject({ text: 'Hello there.' });
    expect(outputs[2]).toMatchObject({
      object: { fullPath: expect.stringContaining(`/runs/${runId}/steps/big.json`) },
    });
    // Without the request flag, no outputs are shown.
    expect((await getRun(t.apiKey, 'later', runId)).json.run).not.toHaveProperty('stepOutputs');
  });

  it('hands a sync run that cannot finish before the deadline to the async engine', async () => {
    const t = await createTenant();
    // The first step ends after `slow` ms; the second (bound: the http timeout + 1 s) cannot end in time.
    const slow = WORKFLOW_SYNC_DEADLINE_MS - 10_000;
    await savedWorkflow(t.companyId, {
      id: 'slow',
      name: 'Slow',
      steps: [
        {
          id: 'first',
          action: 'actions/http/request',
          with: { method: 'GET', url: `${target.url}/slow?ms=${slow}` },
        },
        {
          id: 'second',
          action: 'actions/http/request',
          with: { method: 'GET', url: `${target.url}/slow?ms=10` },
        },
      ],
      return: { first: '{{ steps.first.output.status }}', second: '{{ steps.second.output.status }}' },
    });
    const started = Date.now();
    const res = await runWorkflow(t.apiKey, 'slow');
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(Date.now() - started).toBeLessThan(WORKFLOW_SYNC_DEADLINE_MS);
    const run = await waitForRun(t.apiKey, 'slow', String(res.json.runId));
    expect(run).toMatchObject({ status: 'success', ok: true, result: { first: 200, second: 200 } });
    expect(run.handedOffAt).toEqual(expect.any(String));
  });

  it('keeps any JSON a step answers: nesting deeper than a DynamoDB map, empty keys', async () => {
    const t = await createTenant();
    await savedWorkflow(t.companyId, {
      id: 'deep',
      name: 'Deep',
      steps: [
        { id: 'deep', action: 'actions/http/request', with: { method: 'GET', url: `${target.url}/deep` } },
      ],
      return: { body: '{{ steps.deep.output.body }}' },
    });
    const res = await runWorkflow(t.apiKey, 'deep', { includeStepOutputs: true });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const run = res.json as unknown as RunBody;
    expect(run.status).toBe('success');
    const read = (await getRun(t.apiKey, 'deep', run.runId, '?includeStepOutputs=true')).json.run as RunBody;
    expect(JSON.stringify(read.result)).toContain('{"":"bottom"}');
    expect(JSON.stringify(read.stepOutputs)).toContain('{"":"bottom"}');
  });

  it('refuses runs past the monthly allowance with 429 workflow_quota_exceeded', async () => {
    const t = await createTenant();
    await overrideLimits(t.companyId, { workflowRunsPerMonth: 1 });
    await savedWorkflow(t.companyId, { id: 'once', name: 'Once', steps: [jwtStep('t', {})] });
    expect((await runWorkflow(t.apiKey, 'once')).status).toBe(200);
    const refused = await runWorkflow(t.apiKey, 'once');
    expectProblem(refused, 429, 'workflow_quota_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('honours Idempotency-Key: the same key answers the same run once', async () => {
    const t = await createTenant();
    await savedWorkflow(t.companyId, { id: 'idem', name: 'Idem', steps: [jwtStep('t', {})] });
    const first = await runWorkflow(t.apiKey, 'idem', {}, { 'idempotency-key': 'k-1' });
    const second = await runWorkflow(t.apiKey, 'idem', {}, { 'idempotency-key': 'k-1' });
    expect(second.json.runId).toBe(first.json.runId);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it("answers 404 for unknown workflows and for another tenant's workflow and run ids", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await savedWorkflow(a.companyId, { id: 'mine', name: 'Mine', steps: [jwtStep('t', {})] });
    const run = await runWorkflow(a.apiKey, 'mine');
    const runId = String(run.json.runId);
    expectProblem(await runWorkflow(b.apiKey, 'mine'), 404, 'not_found');
    expectProblem(
      await call('GET', '/v1/workflows/mine', { headers: { 'x-api-key': b.apiKey } }),
      404,
      'not_found',
    );
    expectProblem(await getRun(b.apiKey, 'mine', runId), 404, 'not_found');
    expectProblem(await getRun(a.apiKey, 'other', runId), 404, 'not_found');
    expectProblem(await getRun(a.apiKey, 'mine', 'wr_missing'), 404, 'not_found');
    expect(
      (await call('GET', '/v1/workflows', { headers: { 'x-api-key': b.apiKey } })).json.workflows,
    ).toEqual([]);
  });
});
