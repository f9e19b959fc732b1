import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowRunRecord } from '../../functions/shared/types/workflows';
import { call, createTenant } from './support';

/**
 * Async runs are driven by `workflow-run` queue messages, each naming the run's turn. SQS delivers a message
 * at least once, so a second copy must run nothing: a step is claimed on the run item before it runs, at
 * the message's turn. The messages are handled here, in the test's process, against the stack's table, as
 * the run worker handles them; the runs are created without a message, so the stack's worker never sees
 * them.
 */
const startTarget = async () => {
  const calls = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    calls.set(path, (calls.get(path) ?? 0) + 1);
    // A slow answer keeps the step in flight while the other copy arrives.
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), 300);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: (path: string) => calls.get(path) ?? 0,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
};

let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  target = await startTarget();
  // The engine runs in this process here, as in the worker: the operations join its actions first.
  (await import('../../functions/shared/operations/workflow-actions')).registerWorkflowActions();
});
afterAll(() => target.close());

type Run = {
  status: string;
  logs: { step: string; status: string }[];
  failedSteps: { step: string; code: string }[];
};

/** A saved two-step workflow and a run of it created as the API creates one, with no message sent. */
const quietRun = async (key: string) => {
  const t = await createTenant();
  const headers = { 'x-api-key': t.apiKey };
  const http = (id: string) => ({
    id,
    action: 'actions/http/request',
    with: { method: 'GET', url: `${target.url}/${key}/${id}` },
  });
  const saved = await call('PUT', `/v1/workflows/${key}`, {
    headers,
    body: { name: key, steps: [http('first'), http('second')] },
  });
  expect(saved.status).toBe(201);
  const { createWorkflowRun } = await import('../../functions/shared/data/workflow-runs/runs');
  const { newWorkflowRunId } = await import('../../functions/shared/domain/workflows/runs');
  const now = new Date();
  const run: WorkflowRunRecord = {
    companyId: t.companyId,
    runId: newWorkflowRunId(),
    workflowId: key,
    version: 1,
    mode: 'async',
    status: 'running',
    includeStepOutputs: false,
    input: {},
    callerScopes: ['workflows:run'],
    caller: { source: 'test' },
    hop: 0,
    cursor: 0,
    logs: [],
    outputs: {},
    files: [],
    executionTimeMs: 0,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await createWorkflowRun(run, 1000, now);
  const read = async () =>
    (await call('GET', `/v1/workflows/${key}/runs/${run.runId}`, { headers })).json.run as Run;
  return { run, read, headers, message: { companyId: t.companyId, runId: run.runId, turn: 0 } };
};

describe('workflow run messages', () => {
  it('runs a step once when two copies of its message arrive together, and a late copy runs nothing', async () => {
    const { message, read } = await quietRun('copies');
    const { runWorkflowTurns } = await import('../../functions/shared/domain/workflows/engine');
    const outcomes = await Promise.all([runWorkflowTurns(message), runWorkflowTurns(message)]);
    // One copy runs the run to its end; the other finds the step claimed (in flight, or claimed first).
    expect(outcomes).toContain('finished');
    expect(['busy', 'moved']).toContain(outcomes.find((o) => o !== 'finished'));
    expect(await runWorkflowTurns(message)).toBe('finished');
    expect(await runWorkflowTurns(message, { returning: true })).toBe('finished');
    expect(target.calls('/copies/first')).toBe(1);
    expect(target.calls('/copies/second')).toBe(1);
    const done = await read();
    expect(done.status).toBe('success');
    expect(done.logs.map((l) => [l.step, l.status])).toEqual([
      ['first', 'succeeded'],
      ['second', 'succeeded'],
    ]);
  });

  it('leaves a step in flight to its holder, and records it interrupted once the lease has ended, never running it again', async () => {
    const { run, message, read } = await quietRun('lease');
    const { beginWorkflowStep } = await import('../../functions/shared/data/workflow-runs/progress');
    const { runWorkflowTurns } = await import('../../functions/shared/domain/workflows/engine');
    const { env } = await import('../../functions/shared/env');
    const leaseMs = env().workflowRunLeaseSeconds * 1000;
    // A holder claimed the first step at turn 0, then its worker died.
    const claimedAt = Date.now();
    await beginWorkflowStep(run, 0, 0, new Date(claimedAt));
    // While the lease lasts, neither a copy nor the message coming back touches the step.
    expect(await runWorkflowTurns(message)).toBe('busy');
    expect(await runWorkflowTurns(message, { returning: true })).toBe('busy');
    expect((await read()).logs).toEqual([]);
    // Once it has ended, the message coming back takes over: the step is recorded, not run again.
    const later = () => new Date(claimedAt + leaseMs + 1000);
    expect(await runWorkflowTurns(message, { returning: true }, later)).toBe('finished');
    expect(target.calls('/lease/first')).toBe(0);
    expect(target.calls('/lease/second')).toBe(1);
    const done = await read();
    expect(done.status).toBe('partial');
    expect(done.logs.map((l) => [l.step, l.status])).toEqual([
      ['first', 'failed'],
      ['second', 'succeeded'],
    ]);
    expect(done.failedSteps).toEqual([expect.objectContaining({ step: 'first', code: 'step_interrupted' })]);
  });

  it('runs nothing for a message that arrives after its run was canceled', async () => {
    const { run, message, read, headers } = await quietRun('canceled');
    const { runWorkflowTurns } = await import('../../functions/shared/domain/workflows/engine');
    const canceled = await call('POST', `/v1/workflows/canceled/runs/${run.runId}/cancel`, { headers });
    expect(canceled.status).toBe(200);
    expect(await runWorkflowTurns(message)).toBe('finished');
    expect(await runWorkflowTurns({ ...message, resume: true })).toBe('finished');
    expect(target.calls('/canceled/first')).toBe(0);
    expect((await read()).status).toBe('canceled');
  });

  describe('through the run worker', () => {
    const deliver = async (message: object, receives: number) => {
      const { handler } = await import('../../functions/workers/workflow-run/index');
      const { lambdaContext } = await import('../fixtures/api-events');
      const record = {
        messageId: `m-${receives}-${Math.random()}`,
        body: JSON.stringify(message),
        attributes: { ApproximateReceiveCount: String(receives) },
      };
      const event = { Records: [record] } as unknown as SQSEvent;
      const answer = (await handler(event, lambdaContext)) as SQSBatchResponse;
      return answer.batchItemFailures.map((f) => f.itemIdentifier).includes(record.messageId);
    };

    it('drops a first copy that finds the step leased, and keeps a returning message for later', async () => {
      const { run, message, read } = await quietRun('late');
      const { beginWorkflowStep } = await import('../../functions/shared/data/workflow-runs/progress');
      await beginWorkflowStep(run, 0, 0, new Date());
      expect(await deliver(message, 1)).toBe(false);
      // The message coming back inside the lease is the run's only message: it must come back again.
      expect(await deliver(message, 2)).toBe(true);
      expect(target.calls('/late/first')).toBe(0);
      expect((await read()).status).toBe('running');
    });

    it('fails the run on the last receive of its message, running nothing', async () => {
      const { message, read } = await quietRun('last');
      const { WORKFLOW_RUN_MAX_RECEIVES } = await import('../../functions/shared/types/queues');
      expect(await deliver(message, WORKFLOW_RUN_MAX_RECEIVES)).toBe(true);
      expect(target.calls('/last/first')).toBe(0);
      const failed = (await read()) as Run & { error?: { code: string } };
      expect(failed.status).toBe('failed');
      expect(failed.error?.code).toBe('workflow_run_failed');
    });
  });
});
