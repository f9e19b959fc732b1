import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant } from './support';
import { type RunBody, runWorkflow, savedWorkflow, waitForRun } from './workflow-support';

type Item = {
  index: number;
  status: 'succeeded' | 'failed';
  output?: { status: number; body: unknown };
  error?: { code: string; message: string };
  attempts: number;
};

/**
 * A loopback target counting the calls of each path: `/list?n=N` answers `{items: [0..N-1]}`, `/item/<x>`
 * answers `{item: x}` after `ms` (query) ms, `/flaky/<x>?fails=K` answers 503 to its first K calls. It keeps
 * the most calls it had in flight at once.
 */
const startCountingTarget = async () => {
  const calls = new Map<string, number>();
  let inFlight = 0;
  let mostInFlight = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const seen = (calls.get(url.pathname) ?? 0) + 1;
    calls.set(url.pathname, seen);
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const answer = (status: number, body: unknown) => {
      inFlight -= 1;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const [, kind, name] = url.pathname.split('/');
    if (kind === 'list') {
      const n = Number(url.searchParams.get('n') ?? 0);
      answer(200, { items: Array.from({ length: n }, (_, i) => i) });
    } else if (kind === 'flaky') {
      const fails = Number(url.searchParams.get('fails') ?? 0);
      answer(seen <= fails ? 503 : 200, { item: name, call: seen });
    } else {
      setTimeout(() => answer(200, { item: name }), Number(url.searchParams.get('ms') ?? 0));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    mostInFlight: () => mostInFlight,
    callsUnder: (prefix: string) =>
      [...calls.entries()].filter(([path]) => path.startsWith(prefix)).map(([, n]) => n),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

let target: Awaited<ReturnType<typeof startCountingTarget>>;
beforeAll(async () => {
  target = await startCountingTarget();
});
afterAll(() => target.close());

const post = (path: string) => ({ method: 'POST', url: `${target.url}${path}`, body: { at: '{{ index }}' } });
const itemsOf = (run: RunBody) => (run.result as { items: Item[] }).items;

describe('forEach steps', () => {
  it('calls the target once per item of a list, five at once, and collects every result in order', async () => {
    const t = await createTenant();
    const tag = `fifty-${Date.now()}`;
    await savedWorkflow(t.companyId, {
      id: 'fifty',
      name: 'Fifty',
      steps: [
        {
          id: 'list',
          action: 'actions/http/request',
          with: { method: 'GET', url: `${target.url}/list?n=50` },
        },
        {
          id: 'each',
          action: 'actions/http/request',
          forEach: '{{ steps.list.output.body.items }}',
          concurrency: 5,
          with: post(`/item/${tag}-{{ item }}?ms=60`),
        },
      ],
      return: {
        succeeded: '{{ steps.each.output.succeeded }}',
        failed: '{{ steps.each.output.failed }}',
        items: '{{ steps.each.output.items }}',
      },
    });
    const res = await runWorkflow(t.apiKey, 'fifty');
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const run = res.json as unknown as RunBody;
    expect(run).toMatchObject({ status: 'success', ok: true, result: { succeeded: 50, failed: 0 } });
    const items = itemsOf(run);
    expect(items.map((i) => i.index)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    for (const item of items) {
      expect(item).toMatchObject({ status: 'succeeded', attempts: 1, output: { status: 200 } });
      expect(item.output?.body).toEqual({ item: `${tag}-${item.index}` });
    }
    const counts = target.callsUnder(`/item/${tag}-`);
    expect(counts).toHaveLength(50);
    expect(counts.every((n) => n === 1)).toBe(true);
    expect(target.mostInFlight()).toBeGreaterThan(1);
    expect(target.mostInFlight()).toBeLessThanOrEqual(5);
    // Every item's time counts: 50 calls of at least 60 ms each, though five ran at once.
    expect(run.executionTimeMs).toBeGreaterThanOrEqual(50 * 60);
    expect(run.logs.find((l) => l.step === 'each')).toMatchObject({ status: 'succeeded' });
  });

  it('retries each item on its own, and fails the step when an item fails without allowFailure', async () => {
    const t = await createTenant();
    const tag = `retry-${Date.now()}`;
    const definition = (allowFailure: boolean, run: string) => ({
      id: `retry-${run}`,
      name: 'Retry per item',
      steps: [
        {
          id: 'each',
          action: 'actions/http/request',
          forEach: [0, 1, 5],
          with: post(`/flaky/${tag}-${run}-{{ index }}?fails={{ item }}`),
          retry: { maxAttempts: 3, backoffSeconds: 0 },
          allowFailure,
        },
      ],
      return: { items: '{{ steps.each.output.items }}', status: '{{ steps.each.status }}' },
    });
    await savedWorkflow(t.companyId, definition(false, 'strict'));
    const strict = (await runWorkflow(t.apiKey, 'retry-strict')).json as unknown as RunBody;
    expect(strict).toMatchObject({ status: 'partial', ok: false, error: { code: 'workflow_steps_failed' } });
    expect(strict.failedSteps).toEqual([
      {
        step: 'each',
        code: 'foreach_items_failed',
        userMessage: expect.stringContaining('1 of 3 items failed'),
      },
    ]);
    expect(itemsOf(strict)).toMatchObject([
      { index: 0, status: 'succeeded', attempts: 1 },
      { index: 1, status: 'succeeded', attempts: 2 },
      { index: 2, status: 'failed', attempts: 3, error: { code: 'http_status' } },
    ]);
    expect(target.calls.get(`/flaky/${tag}-strict-0`)).toBe(1);
    expect(target.calls.get(`/flaky/${tag}-strict-1`)).toBe(2);
    expect(target.calls.get(`/flaky/${tag}-strict-2`)).toBe(3);

    await savedWorkflow(t.companyId, definition(true, 'lenient'));
    const lenient = (await runWorkflow(t.apiKey, 'retry-lenient')).json as unknown as RunBody;
    expect(lenient).toMatchObject({ status: 'success', ok: true, failedSteps: [] });
    expect(lenient.result).toMatchObject({ status: 'succeeded' });
    expect(itemsOf(lenient).map((i) => i.status)).toEqual(['succeeded', 'succeeded', 'failed']);
  });

  it('leaves an item whose retry waits past the work budget waiting, and comes back for it', async () => {
    const t = await createTenant();
    const tag = `wait-${Date.now()}`;
    await savedWorkflow(t.companyId, {
      id: 'wait',
      name: 'Long wait',
      steps: [
        {
          id: 'each',
          action: 'actions/http/request',
          forEach: [1, 0],
          // A wait of 10 to 20 s: longer than an async message's work budget, so the item is released.
          retry: { maxAttempts: 2, backoffSeconds: 20 },
          with: post(`/flaky/${tag}-{{ index }}?fails={{ item }}`),
        },
      ],
      return: { items: '{{ steps.each.output.items }}' },
    });
    const started = Date.now();
    const accepted = await runWorkflow(t.apiKey, 'wait', { mode: 'async' });
    expect(accepted.status).toBe(202);
    const run = await waitForRun(t.apiKey, 'wait', String(accepted.json.runId), 60_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    expect(run).toMatchObject({ status: 'success', ok: true });
    expect(itemsOf(run)).toMatchObject([
      { index: 0, status: 'succeeded', attempts: 2, output: { status: 200 } },
      { index: 1, status: 'succeeded', attempts: 1 },
    ]);
    expect(target.calls.get(`/flaky/${tag}-0`)).toBe(2);
    expect(target.calls.get(`/flaky/${tag}-1`)).toBe(1);
    // Waiting is not step time.
    expect(run.executionTimeMs).toBeLessThan(5_000);
  }, 90_000);

  it('fails the step with foreach_not_array when the reference is not a list, calling nothing', async () => {
    const t = await createTenant();
    const tag = `notlist-${Date.now()}`;
    await savedWorkflow(t.companyId, {
      id: 'not-list',
      name: 'Not a list',
      steps: [
        {
          id: 'each',
          action: 'actions/http/request',
          forEach: '{{ input.items }}',
          with: post(`/item/${tag}`),
        },
        {
          id: 'after',
          action: 'actions/http/request',
          with: { method: 'GET', url: `${target.url}/item/${tag}-after` },
        },
      ],
    });
    for (const items of ['abc', { a: 1 }, 3]) {
      const run = (await runWorkflow(t.apiKey, 'not-list', { input: { items } })).json as unknown as RunBody;
      expect(run).toMatchObject({ status: 'partial', ok: false });
      expect(run.failedSteps).toEqual([
        { step: 'each', code: 'foreach_not_array', userMessage: expect.stringContaining('not a list') },
      ]);
      // A failing step never aborts the run: the next step ran.
      expect(run.logs.map((l) => [l.step, l.status])).toEqual([
        ['each', 'failed'],
        ['after', 'succeeded'],
      ]);
    }
    expect(target.calls.get(`/item/${tag}`)).toBeUndefined();
  });

  it("fails the step with foreach_too_many_items past the plan's workflowForEachItems", async () => {
    const t = await createTenant({ limits: { workflowForEachItems: 3 } });
    const tag = `bound-${Date.now()}`;
    await savedWorkflow(t.companyId, {
      id: 'bound',
      name: 'Bound',
      steps: [
        {
          id: 'each',
          action: 'actions/http/request',
          forEach: '{{ input.items }}',
          with: post(`/item/${tag}-{{ item }}`),
        },
      ],
      return: { succeeded: '{{ steps.each.output.succeeded }}' },
    });
    const over = (await runWorkflow(t.apiKey, 'bound', { input: { items: [1, 2, 3, 4] } }))
      .json as unknown as RunBody;
    expect(over.failedSteps).toEqual([
      { step: 'each', code: 'foreach_too_many_items', userMessage: expect.stringContaining('allows 3') },
    ]);
    expect(target.callsUnder(`/item/${tag}-`)).toEqual([]);
    const within = (await runWorkflow(t.apiKey, 'bound', { input: { items: [1, 2, 3] } }))
      .json as unknown as RunBody;
    expect(within).toMatchObject({ status: 'success', result: { succeeded: 3 } });
    const plans = await call('GET', '/v1/public/plans');
    for (const plan of plans.json.plans as { limits: Record<string, number> }[]) {
      expect(plan.limits.workflowForEachItems).toBeGreaterThan(0);
    }
  });

  it('counts every item against the compute budget, though they run at once', async () => {
    const t = await createTenant({ limits: { workflowRunComputeMs: 1500 } });
    const tag = `budget-${Date.now()}`;
    await savedWorkflow(t.companyId, {
      id: 'budget',
      name: 'Budget',
      steps: [
        {
          id: 'each',
          action: 'actions/http/request',
          forEach: Array.from({ length: 40 }, (_, i) => i),
          concurrency: 10,
          with: post(`/item/${tag}-{{ item }}?ms=200`),
        },
      ],
    });
    const run = (await runWorkflow(t.apiKey, 'budget')).json as unknown as RunBody;
    expect(run).toMatchObject({ status: 'failed', ok: false, error: { code: 'workflow_compute_exceeded' } });
    expect(run.executionTimeMs).toBeGreaterThanOrEqual(1500);
    // Forty items of 200 ms are 8 s of step time: the budget stopped the loop well before its end.
    expect(target.callsUnder(`/item/${tag}-`).length).toBeLessThan(40);
  });

  it('hands a sync loop that would pass the deadline to the async engine, which runs only the rest', async () => {
    const t = await createTenant();
    const tag = `handoff-${Date.now()}`;
    await savedWorkflow(t.companyId, {
      id: 'handoff',
      name: 'Hand-off',
      steps: [
        {
          id: 'each',
          action: 'actions/http/request',
          forEach: Array.from({ length: 10 }, (_, i) => i),
          with: post(`/item/${tag}-{{ item }}?ms=1000`),
        },
      ],
      return: { succeeded: '{{ steps.each.output.succeeded }}', items: '{{ steps.each.output.items }}' },
    });
    const res = await runWorkflow(t.apiKey, 'handoff');
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const called = target.callsUnder(`/item/${tag}-`).length;
    expect(called).toBeGreaterThan(0);
    expect(called).toBeLessThan(10);
    const run = await waitForRun(t.apiKey, 'handoff', String(res.json.runId), 60_000);
    expect(run).toMatchObject({ status: 'success', result: { succeeded: 10 } });
    expect(run.handedOffAt).toEqual(expect.any(String));
    expect(itemsOf(run).map((i) => i.index)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    const counts = target.callsUnder(`/item/${tag}-`);
    expect(counts).toHaveLength(10);
    expect(counts.every((n) => n === 1)).toBe(true);
  }, 90_000);
});
