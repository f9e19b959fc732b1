import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem } from './support';
import { getRun, type RunBody, runWorkflow, waitForRun } from './workflow-support';

/**
 * A loopback server: `/flaky/<key>` answers 503 twice per key, then 200 with JSON; `/hold` answers only when
 * the test releases it (`held` resolves once a request is waiting).
 */
const startServer = async () => {
  const calls = new Map<string, number>();
  let release: () => void = () => undefined;
  let arrived: () => void = () => undefined;
  const held = new Promise<void>((r) => {
    arrived = r;
  });
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/flaky/')) {
      const n = (calls.get(path) ?? 0) + 1;
      calls.set(path, n);
      if (n <= 2) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, n }));
      return;
    }
    release = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"late":true}');
    arrived();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    calls: (path: string) => calls.get(path) ?? 0,
    release: () => release(),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
};

let target: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  target = await startServer();
});
afterAll(() => target.close());

const put = (apiKey: string, id: string, body: unknown, headers: Record<string, string> = {}) =>
  call('PUT', `/v1/workflows/${id}`, { headers: { 'x-api-key': apiKey, ...headers }, body });
const del = (apiKey: string, id: string, headers: Record<string, string> = {}) =>
  call('DELETE', `/v1/workflows/${id}`, { headers: { 'x-api-key': apiKey, ...headers } });
const get = (apiKey: string, path: string) => call('GET', path, { headers: { 'x-api-key': apiKey } });
const cancel = (apiKey: string, id: string, runId: string) =>
  call('POST', `/v1/workflows/${id}/runs/${runId}/cancel`, { headers: { 'x-api-key': apiKey } });

const spoken = (markdown: string) => ({
  id: 'say',
  action: 'actions/speech/spoken-text',
  with: { markdown },
});

describe('workflow definitions over the API', () => {
  it('saves with PUT (201 new, 200 next version), honours If-Match, runs it, and deletes it (204)', async () => {
    const t = await createTenant();
    const doc = { name: 'Say hi', steps: [spoken('# Hi')], return: { text: '{{ steps.say.output.text }}' } };
    const created = await put(t.apiKey, 'hello', doc);
    expect(created.status).toBe(201);
    expect(created.json.workflow).toMatchObject({ id: 'hello', version: 1, name: 'Say hi' });
    const read = await get(t.apiKey, '/v1/workflows/hello');
    const etag = String(read.headers.get('etag'));
    expectProblem(await put(t.apiKey, 'hello', doc, { 'if-match': '"stale"' }), 412, 'precondition_failed');
    const next = await put(
      t.apiKey,
      'hello',
      { ...doc, id: 'hello', name: 'Say hi again' },
      { 'if-match': etag },
    );
    expect(next.status).toBe(200);
    expect(next.json.workflow).toMatchObject({ id: 'hello', version: 2, name: 'Say hi again' });
    const run = await runWorkflow(t.apiKey, 'hello');
    expect(run.json).toMatchObject({ status: 'success', ok: true, result: { text: 'Hi.' } });
    expectProblem(await del(t.apiKey, 'hello', { 'if-match': etag }), 412, 'precondition_failed');
    const deleted = await del(t.apiKey, 'hello');
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ deleted: true, id: 'hello' });
    expectProblem(await get(t.apiKey, '/v1/workflows/hello'), 404, 'not_found');
    expectProblem(await del(t.apiKey, 'hello'), 404, 'not_found');
    // The run stays readable on the version it ran.
    expect((await getRun(t.apiKey, 'hello', String(run.json.runId))).json.run).toMatchObject({ version: 2 });
  });

  it('refuses an invalid definition with 400 listing every violation by pointer', async () => {
    const t = await createTenant();
    const refused = await put(t.apiKey, 'bad', {
      id: 'other',
      name: '',
      steps: [
        {
          id: 'a',
          action: 'actions/nope',
          if: { eq: ['{{ steps.b.output.x }}'] },
          retry: { maxAttempts: 11, on: ['http_5xx', 'sometimes'] },
        },
        { id: 'b', action: 'actions/speech/spoken-text', if: { maybe: true } },
      ],
    });
    expectProblem(refused, 400, 'validation_failed');
    const refusedPath = await put(t.apiKey, 'bad', { id: 'other', name: 'x', steps: [spoken('x')] });
    expect(refusedPath.json.errors).toEqual([{ pointer: '/body/id', message: expect.any(String) }]);
    const pointers = (refused.json.errors as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/body/id',
        '/body/name',
        '/body/steps/0/action',
        '/body/steps/0/if/eq',
        '/body/steps/0/retry/maxAttempts',
        '/body/steps/0/retry/on/1',
        '/body/steps/1/if',
      ]),
    );
    expectProblem(await get(t.apiKey, '/v1/workflows/bad'), 404, 'not_found');
  });

  it("caps a company's workflows at its plan's workflows (403) and frees a place on delete", async () => {
    const t = await createTenant({ limits: { workflows: 1 } });
    expect((await put(t.apiKey, 'one', { name: 'One', steps: [spoken('x')] })).status).toBe(201);
    const refused = await put(t.apiKey, 'two', { name: 'Two', steps: [spoken('x')] });
    expectProblem(refused, 403, 'workflow_limit_reached');
    expect(refused.json.limit).toBe(1);
    // A new version of an existing workflow takes no new place.
    expect((await put(t.apiKey, 'one', { name: 'One v2', steps: [spoken('x')] })).status).toBe(200);
    expect((await del(t.apiKey, 'one')).status).toBe(200);
    expect((await put(t.apiKey, 'two', { name: 'Two', steps: [spoken('x')] })).status).toBe(201);
  });

  it('needs workflows:write to save', async () => {
    const t = await createTenant({ scopes: ['workflows:read', 'workflows:run'] });
    expectProblem(await put(t.apiKey, 'w', { name: 'W', steps: [spoken('x')] }), 403, 'insufficient_scope');
  });
});

describe('steps that decide and retry', () => {
  const flaky = (key: string, backoffSeconds: number) => ({
    name: 'Flaky',
    steps: [
      {
        id: 'call',
        action: 'actions/http/request',
        with: { method: 'GET', url: `${target.url}/flaky/${key}` },
        retry: { maxAttempts: 3, backoffSeconds, on: ['http_5xx'] },
      },
      { ...spoken('not said'), id: 'skipped', if: { ne: ['{{ steps.call.output.status }}', 200] } },
      {
        ...spoken('said'),
        id: 'said',
        if: { and: [{ exists: '{{ steps.call.output.body.ok }}' }, { in: [3, [1, 3]] }] },
      },
    ],
    return: { status: '{{ steps.call.output.status }}', skipped: '{{ steps.skipped.status }}' },
  });

  const expectRetried = (run: RunBody) => {
    expect(run).toMatchObject({ status: 'success', ok: true, result: { status: 200, skipped: 'skipped' } });
    const logs = run.logs as (RunBody['logs'][number] & { attempts?: { httpStatus?: number }[] })[];
    expect(logs.map((l) => [l.step, l.status])).toEqual([
      ['call', 'succeeded'],
      ['skipped', 'skipped'],
      ['said', 'succeeded'],
    ]);
    expect(logs[0]?.attempts?.map((a) => a.httpStatus)).toEqual([503, 503, 200]);
  };

  it('a sync run retries a step answered 503 twice, succeeds on the third attempt and skips a false step', async () => {
    const t = await createTenant();
    expect((await put(t.apiKey, 'flaky', flaky('sync', 0))).status).toBe(201);
    const run = await runWorkflow(t.apiKey, 'flaky', { includeStepOutputs: true });
    expect(run.status).toBe(200);
    expectRetried(run.json as RunBody);
    expect((run.json as RunBody).stepOutputs).toContainEqual({ step: 'skipped', output: null });
    expectRetried((await getRun(t.apiKey, 'flaky', String(run.json.runId))).json.run as RunBody);
  });

  it('an async run waits between attempts in delayed queue messages and ends the same way', async () => {
    const t = await createTenant();
    expect((await put(t.apiKey, 'flaky', flaky('async', 1))).status).toBe(201);
    const started = await runWorkflow(t.apiKey, 'flaky', { mode: 'async' });
    expect(started.status).toBe(202);
    expectRetried(await waitForRun(t.apiKey, 'flaky', String(started.json.runId)));
  });
});

describe('conditions that compare', () => {
  const deciding = {
    name: 'Deciding',
    steps: [
      { ...spoken('big'), id: 'big', if: { gte: ['{{ input.total }}', 100] } },
      { ...spoken('old'), id: 'old', if: { lt: ['{{ input.placedAt }}', '2026-11-01T00:00:00Z'] } },
      { ...spoken('vip'), id: 'vip', if: { contains: ['{{ input.tags }}', 'vip'] } },
      { ...spoken('none'), id: 'none', if: { isEmpty: '{{ input.notes }}' } },
    ],
  };
  const statuses = (run: RunBody) => run.logs.map((l) => [l.step, l.status]);

  it('decide steps by numbers, timestamps, lists and emptiness, and fail a step whose operands do not compare', async () => {
    const t = await createTenant();
    expect((await put(t.apiKey, 'deciding', deciding)).status).toBe(201);
    const yes = await runWorkflow(t.apiKey, 'deciding', {
      input: { total: 100, placedAt: '2026-10-31T23:59:59Z', tags: ['vip'], notes: '' },
    });
    expect(yes.json).toMatchObject({ status: 'success', ok: true });
    expect(statuses(yes.json as RunBody)).toEqual([
      ['big', 'succeeded'],
      ['old', 'succeeded'],
      ['vip', 'succeeded'],
      ['none', 'succeeded'],
    ]);
    const no = await runWorkflow(t.apiKey, 'deciding', {
      input: { total: 99.5, placedAt: '2026-11-01', tags: [], notes: 'call first' },
    });
    expect(statuses(no.json as RunBody).map(([, status]) => status)).toEqual([
      'skipped',
      'skipped',
      'skipped',
      'skipped',
    ]);
    const mismatched = await runWorkflow(t.apiKey, 'deciding', {
      input: { total: 'a lot', placedAt: '2026-10-01', tags: 'vip', notes: null },
    });
    expect(mismatched.json).toMatchObject({
      status: 'partial',
      ok: false,
      failedSteps: [{ step: 'big', code: 'condition_type_mismatch' }],
    });
    // A string holds `vip`; null is empty.
    expect(statuses(mismatched.json as RunBody)).toEqual([
      ['big', 'failed'],
      ['old', 'succeeded'],
      ['vip', 'succeeded'],
      ['none', 'succeeded'],
    ]);
  });

  it('refuses on save operands written out that no run could compare', async () => {
    const t = await createTenant();
    const refused = await put(t.apiKey, 'never', {
      name: 'Never',
      steps: [{ ...spoken('x'), id: 'x', if: { gt: ['{{ input.total }}', 'many'] } }],
    });
    expectProblem(refused, 400, 'validation_failed');
    expect(refused.json.errors).toEqual([expect.objectContaining({ pointer: '/body/steps/0/if/gt/1' })]);
  });
});

describe('saved versions', () => {
  it('lists every version a workflow saved and reads each; a run names the version it ran', async () => {
    const t = await createTenant();
    const other = await createTenant();
    for (const name of ['First', 'Second', 'Third'])
      expect((await put(t.apiKey, 'versioned', { name, steps: [spoken(name)] })).status).toBeLessThan(300);
    const run = await runWorkflow(t.apiKey, 'versioned');
    expect((await getRun(t.apiKey, 'versioned', String(run.json.runId))).json.run).toMatchObject({
      version: 3,
    });
    const page = await get(t.apiKey, '/v1/workflows/versioned/versions?limit=2');
    expect(page.status).toBe(200);
    const versions = page.json.versions as { version: number; name: string; savedAt: string }[];
    expect(versions.map((v) => [v.version, v.name])).toEqual([
      [1, 'First'],
      [2, 'Second'],
    ]);
    const rest = await get(
      t.apiKey,
      `/v1/workflows/versioned/versions?limit=2&cursor=${String(page.json.nextCursor)}`,
    );
    expect((rest.json.versions as { version: number }[]).map((v) => v.version)).toEqual([3]);
    expect(rest.json.nextCursor).toBeNull();
    const first = await get(t.apiKey, '/v1/workflows/versioned/versions/1');
    expect(first.json.workflow).toMatchObject({ id: 'versioned', version: 1, name: 'First' });
    expect(first.headers.get('etag')).toBeTruthy();
    expectProblem(await get(t.apiKey, '/v1/workflows/versioned/versions/4'), 404, 'not_found');
    expectProblem(await get(t.apiKey, '/v1/workflows/versioned/versions/0'), 400, 'validation_failed');
    expectProblem(await get(other.apiKey, '/v1/workflows/versioned/versions'), 404, 'not_found');
    expectProblem(await get(other.apiKey, '/v1/workflows/versioned/versions/1'), 404, 'not_found');
  });
});

describe('runs started again', () => {
  it('reruns a run with its input on the version it ran, or the latest, linked to it', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const doc = (text: string) => ({
      name: text,
      input: { type: 'object', properties: { who: { type: 'string' } } },
      steps: [{ ...spoken(`${text} {{ input.who }}`), id: 'say' }],
      return: { text: '{{ steps.say.output.text }}' },
    });
    await put(t.apiKey, 'again', doc('Hello'));
    const first = await runWorkflow(t.apiKey, 'again', { input: { who: 'Ada' } });
    const runId = String(first.json.runId);
    await put(t.apiKey, 'again', doc('Goodbye'));
    const rerun = (body: unknown, apiKey = t.apiKey, id = runId) =>
      call('POST', `/v1/workflows/again/runs/${id}/rerun`, { headers: { 'x-api-key': apiKey }, body });
    const same = await rerun({});
    expect(same.status).toBe(200);
    expect(same.json).toMatchObject({ status: 'success', ok: true, result: { text: 'Hello Ada.' } });
    expect(same.json.runId).not.toBe(runId);
    const stored = (await getRun(t.apiKey, 'again', String(same.json.runId))).json.run;
    expect(stored).toMatchObject({ version: 1, trigger: { type: 'rerun', rerunOf: runId } });
    const latest = await rerun({ version: 'latest' });
    expect(latest.json).toMatchObject({ result: { text: 'Goodbye Ada.' } });
    const queued = await rerun({ mode: 'async' });
    expect(queued.status).toBe(202);
    expect((await waitForRun(t.apiKey, 'again', String(queued.json.runId))).result).toEqual({
      text: 'Hello Ada.',
    });
    expectProblem(await rerun({}, t.apiKey, 'wr_01jd3xq0e5g7j9l1n3p5r7t9zz'), 404, 'not_found');
    expectProblem(await rerun({}, other.apiKey), 404, 'not_found');
    expectProblem(await rerun({ version: 'oldest' }), 400, 'validation_failed');
  });
});

describe('HTTP steps judged by their status', () => {
  it('fail outside 2xx with http_status and keep the answer; expectStatus accepts other statuses', async () => {
    const t = await createTenant();
    const doc = {
      name: 'Judged',
      steps: [
        {
          id: 'call',
          action: 'actions/http/request',
          with: { method: 'GET', url: `${target.url}/flaky/judged-1` },
        },
        { ...spoken('saw 503'), id: 'seen', if: { eq: ['{{ steps.call.output.status }}', 503] } },
        {
          id: 'tolerant',
          action: 'actions/http/request',
          with: { method: 'GET', url: `${target.url}/flaky/judged-2`, expectStatus: [503, '2xx'] },
        },
      ],
      return: {
        first: '{{ steps.call.output.status }}',
        body: '{{ steps.call.output.body }}',
        rules: ['{{ steps.call.output.statusRule }}', '{{ steps.tolerant.output.statusRule }}'],
      },
    };
    expect((await put(t.apiKey, 'judged', doc)).status).toBe(201);
    const run = await runWorkflow(t.apiKey, 'judged');
    expect(run.json).toMatchObject({
      status: 'partial',
      ok: false,
      error: { code: 'workflow_steps_failed' },
      failedSteps: [{ step: 'call', code: 'http_status' }],
      result: { first: 503, body: 'busy', rules: ['2xx', 'expectStatus'] },
    });
    expect((run.json as RunBody).logs.map((l) => [l.step, l.status])).toEqual([
      ['call', 'failed'],
      ['seen', 'succeeded'],
      ['tolerant', 'succeeded'],
    ]);
  });

  it('refuses on save an expectStatus entry that is no status', async () => {
    const t = await createTenant();
    const refused = await put(t.apiKey, 'odd', {
      name: 'Odd',
      steps: [
        {
          id: 'call',
          action: 'actions/http/request',
          with: { method: 'GET', url: `${target.url}/x`, expectStatus: [200, '2xy', 700] },
        },
      ],
    });
    expectProblem(refused, 400, 'validation_failed');
    expect((refused.json.errors as { pointer: string }[]).map((e) => e.pointer)).toEqual([
      '/body/steps/0/with/expectStatus/1',
      '/body/steps/0/with/expectStatus/2',
    ]);
  });
});

describe('a step that fails the run', () => {
  const guarded = {
    name: 'Guarded',
    steps: [
      { ...spoken('checked'), id: 'check' },
      {
        id: 'stop',
        action: 'actions/flow/fail',
        with: { code: 'order_missing', message: 'No order for {{ input.customer }}.' },
        if: { isEmpty: '{{ input.order }}' },
        allowFailure: true,
      },
      { ...spoken('shipped'), id: 'ship' },
    ],
    return: { shipped: '{{ steps.ship.status }}' },
  };

  it('ends a sync and an async run failed with its code, the later steps not run', async () => {
    const t = await createTenant();
    expect((await put(t.apiKey, 'guarded', guarded)).status).toBe(201);
    const failed = await runWorkflow(t.apiKey, 'guarded', { input: { customer: 'Ada' } });
    expect(failed.status).toBe(200);
    expect(failed.json).toMatchObject({
      status: 'failed',
      ok: false,
      result: null,
      error: { code: 'order_missing', message: 'No order for Ada.' },
      failedSteps: [{ step: 'stop', code: 'order_missing' }],
    });
    expect((failed.json as RunBody).logs.map((l) => [l.step, l.status])).toEqual([
      ['check', 'succeeded'],
      ['stop', 'failed'],
    ]);
    const started = await runWorkflow(t.apiKey, 'guarded', { input: { customer: 'Bo' }, mode: 'async' });
    const finished = await waitForRun(t.apiKey, 'guarded', String(started.json.runId));
    expect(finished).toMatchObject({ status: 'failed', ok: false, error: { code: 'order_missing' } });
    expect(finished.logs.map((l) => l.step)).toEqual(['check', 'stop']);

    const passed = await runWorkflow(t.apiKey, 'guarded', { input: { customer: 'Cy', order: { id: 7 } } });
    expect(passed.json).toMatchObject({ status: 'success', ok: true, result: { shipped: 'succeeded' } });
  });
});

describe('canceling a run', () => {
  it('hands a sync run off (202) when its next attempt would pass the deadline, and cancels it while it waits', async () => {
    const t = await createTenant();
    const doc = {
      name: 'Patient',
      steps: [
        {
          id: 'call',
          action: 'actions/http/request',
          with: { method: 'GET', url: `${target.url}/flaky/patient` },
          retry: { maxAttempts: 5, backoffSeconds: 300 },
        },
      ],
    };
    expect((await put(t.apiKey, 'patient', doc)).status).toBe(201);
    const started = await runWorkflow(t.apiKey, 'patient');
    expect(started.status).toBe(202);
    const runId = String(started.json.runId);
    // Handed to the engine, the sync run is listed as running (it had no entry while it ran in the request).
    expect((await get(t.apiKey, '/v1/workflows/patient/runs')).json.runs).toEqual([
      { runId, status: 'running', trigger: 'api', startedAt: expect.any(String), finishedAt: null },
    ]);
    const canceled = await cancel(t.apiKey, 'patient', runId);
    expect(canceled.json.run).toMatchObject({
      status: 'canceled',
      mode: 'async',
      handedOffAt: expect.any(String),
      logs: [{ step: 'call', status: 'failed', attempts: [{ status: 'failed', httpStatus: 503 }] }],
      failedSteps: [{ step: 'call', code: 'step_interrupted' }],
    });
    expect((await waitForRun(t.apiKey, 'patient', runId)).status).toBe('canceled');
    expect(target.calls('/flaky/patient')).toBe(1);
  });

  it('lists a sync run once it has finished, with its start, trigger, status and end', async () => {
    const t = await createTenant();
    expect((await put(t.apiKey, 'quick', { name: 'Quick', steps: [spoken('Hi.')] })).status).toBe(201);
    const answered = await runWorkflow(t.apiKey, 'quick');
    expect(answered.status).toBe(200);
    const runId = String(answered.json.runId);
    const { run } = (await getRun(t.apiKey, 'quick', runId)).json as {
      run: { createdAt: string; finishedAt: string };
    };
    expect((await get(t.apiKey, '/v1/workflows/quick/runs')).json.runs).toEqual([
      { runId, status: 'success', trigger: 'api', startedAt: run.createdAt, finishedAt: run.finishedAt },
    ]);
    expect((await get(t.apiKey, '/v1/workflows/quick/runs?status=success')).json.runs).toHaveLength(1);
  });

  it('stops a slow async run (its step in flight interrupted), refuses a second cancel, lists it, and keeps it from other companies', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const doc = {
      name: 'Slow',
      steps: [
        { id: 'wait', action: 'actions/http/request', with: { method: 'GET', url: `${target.url}/hold` } },
        spoken('never'),
      ],
    };
    expect((await put(t.apiKey, 'slow', doc)).status).toBe(201);
    const started = await runWorkflow(t.apiKey, 'slow', { mode: 'async' });
    const runId = String(started.json.runId);
    await target.held;
    expectProblem(await cancel(other.apiKey, 'slow', runId), 404, 'not_found');
    expectProblem(await get(other.apiKey, `/v1/workflows/slow/runs/${runId}`), 404, 'not_found');
    expectProblem(await get(other.apiKey, '/v1/workflows/slow'), 404, 'not_found');
    expectProblem(await get(other.apiKey, '/v1/workflows/slow/runs'), 404, 'not_found');
    expectProblem(await del(other.apiKey, 'slow'), 404, 'not_found');
    const canceled = await cancel(t.apiKey, 'slow', runId);
    expect(canceled.status).toBe(200);
    expect(canceled.json.run).toMatchObject({
      status: 'canceled',
      ok: false,
      error: { code: 'workflow_run_canceled' },
      logs: [{ step: 'wait', status: 'failed' }],
      failedSteps: [{ step: 'wait', code: 'step_interrupted' }],
    });
    const again = await cancel(t.apiKey, 'slow', runId);
    expectProblem(again, 409, 'workflow_run_not_cancelable');
    expect(again.json.runStatus).toBe('canceled');
    target.release();
    const history = await get(t.apiKey, '/v1/workflows/slow/runs?status=canceled');
    expect(history.json.runs).toMatchObject([{ runId, status: 'canceled', trigger: 'api' }]);
    expect((history.json.runs as { finishedAt: unknown }[])[0]?.finishedAt).toEqual(expect.any(String));
    expect((await get(t.apiKey, '/v1/workflows/slow/runs?status=success')).json.runs).toEqual([]);
    expect((await getRun(t.apiKey, 'slow', runId)).json.run).toMatchObject({ status: 'canceled' });
  });
});
