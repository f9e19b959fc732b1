import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant } from './support';
import { type RunBody, runWorkflow, savedWorkflow, startTarget, waitForRun } from './workflow-support';

let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target.close());

/** Five steps of about 600 ms each: about 3 s of step time, twice what the budget below allows. */
const slow = (url: string) => ({
  id: 'slow',
  name: 'Slow steps',
  steps: Array.from({ length: 5 }, (_, i) => ({
    id: `s${i}`,
    action: 'actions/http/request',
    with: { method: 'GET', url: `${url}/slow?ms=600` },
  })),
  return: { last: '{{ steps.s4.status }}' },
});

const checkStopped = async (apiKey: string, run: RunBody) => {
  expect(run).toMatchObject({ status: 'failed', ok: false, result: null });
  expect(run.error?.code).toBe('workflow_compute_exceeded');
  const ran = run.logs.map((l) => l.step);
  // Some steps ran, the rest did not, and the message names those.
  expect(ran.length).toBeGreaterThan(0);
  expect(ran.length).toBeLessThan(5);
  expect((run.error as { message?: string }).message).toContain(`not run: s${ran.length}`);
  const usage = await call('GET', '/v1/usage', { headers: { 'x-api-key': apiKey } });
  const snapshot = usage.json.usage as { meters: Record<string, number>; computeMs: Record<string, number> };
  expect(snapshot.computeMs.workflows).toBeGreaterThanOrEqual(run.executionTimeMs);
};

describe('the compute budget of a workflow run', () => {
  it('stops a sync run past its plan budget with workflow_compute_exceeded, counting the time used', async () => {
    const t = await createTenant({ limits: { workflowRunComputeMs: 1500 } });
    await savedWorkflow(t.companyId, slow(target.url));
    const run = await runWorkflow(t.apiKey, 'slow');
    expect(run.status).toBe(200);
    await checkStopped(t.apiKey, run.json as unknown as RunBody);
  });

  it('stops an async run the same way', { timeout: 60_000 }, async () => {
    const t = await createTenant({ limits: { workflowRunComputeMs: 1500 } });
    await savedWorkflow(t.companyId, slow(target.url));
    const accepted = await runWorkflow(t.apiKey, 'slow', { mode: 'async' });
    expect(accepted.status).toBe(202);
    await checkStopped(t.apiKey, await waitForRun(t.apiKey, 'slow', String(accepted.json.runId), 45_000));
  });

  it('is part of every plan, as the public catalog shows', async () => {
    const plans = await call('GET', '/v1/public/plans');
    for (const plan of plans.json.plans as { limits: Record<string, number> }[]) {
      expect(plan.limits.workflowRunComputeMs).toBeGreaterThan(0);
    }
  });
});
