import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { apiOf, demoCompanyId, putWorkflowInto, startRecordingTarget, tableOf } from './crash-support';
import { type StackProcess, startStackProcess } from './local-stack-process';
import { eventually } from './webhook-receiver';

type Run = {
  status: string;
  error: { code: string; message?: string } | null;
  logs: { step: string; status: string }[];
  failedSteps: { step: string; code: string }[];
};

/**
 * Workflow runs caught by a crash of the local stack (`kill -9`, nothing of it runs its shutdown): after the
 * restart an async run goes on from its cursor (the step caught mid-way is recorded as interrupted, not run
 * twice) and a sync run, whose caller is gone, is settled as failed; none stays `running`.
 */
describe('local stack killed while workflow runs are in flight', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-workflow-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('resumes the async run from its cursor and fails the sync run with workflow_run_failed', async () => {
    const target = await startRecordingTarget(8_000);
    const first = await startStackProcess(dataDir);
    let second: StackProcess | undefined;
    try {
      const companyId = await demoCompanyId(first);
      const http = (id: string, path: string, allowFailure = false) => ({
        id,
        action: 'actions/http/request',
        with: { method: 'GET', url: `${target.url}${path}` },
        ...(allowFailure ? { allowFailure } : {}),
      });
      await putWorkflowInto(first, companyId, {
        id: 'resumed',
        name: 'Resumed',
        steps: [http('slow', '/slow-async', true), http('after', '/after')],
      });
      await putWorkflowInto(first, companyId, {
        id: 'sync-slow',
        name: 'Sync slow',
        steps: [http('slow', '/slow-sync')],
      });
      const started = await apiOf(first)('POST', '/v1/workflows/resumed/run', { mode: 'async' });
      expect(started.status, JSON.stringify(started.json)).toBe(202);
      const asyncRunId = String(started.json.runId);
      // The caller of the sync run loses its connection with the crash.
      const syncCall = apiOf(first)('POST', '/v1/workflows/sync-slow/run', {}).catch(() => undefined);
      const inFlight = await eventually(
        () => target.arrived,
        (a) => a.includes('/slow-async') && a.includes('/slow-sync'),
        40_000,
      );
      expect(inFlight).toEqual(expect.arrayContaining(['/slow-async', '/slow-sync']));
      expect(await first.stop('SIGKILL')).toBeNull();
      await syncCall;

      second = await startStackProcess(dataDir);
      const api = apiOf(second);
      const runOf = async (workflowId: string, runId: string) =>
        (await api('GET', `/v1/workflows/${workflowId}/runs/${runId}`)).json.run as Run;
      const resumed = await eventually(
        () => runOf('resumed', asyncRunId),
        (r) => r.status !== 'running',
        60_000,
      );
      expect(resumed.status).not.toBe('running');
      expect(resumed.failedSteps).toEqual([
        expect.objectContaining({ step: 'slow', code: 'step_interrupted' }),
      ]);
      expect(resumed.logs.find((l) => l.step === 'after')).toMatchObject({ status: 'succeeded' });
      // The step caught mid-way was not sent again; the next one was sent once.
      expect(target.arrived.filter((p) => p === '/slow-async')).toHaveLength(1);
      expect(target.arrived.filter((p) => p === '/after')).toHaveLength(1);

      const db = tableOf(second);
      const { tableName } = second.description;
      const runs = await db.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: 'entity = :run AND workflowId = :wf',
          ExpressionAttributeValues: { ':run': 'workflow_run', ':wf': 'sync-slow' },
        }),
      );
      expect(runs.Items).toHaveLength(1);
      const syncRun = await runOf('sync-slow', String(runs.Items?.[0]?.runId));
      expect(syncRun.status).toBe('failed');
      expect(syncRun.error).toMatchObject({ code: 'workflow_run_failed' });
      expect(syncRun.error?.message).toContain('restart');
      // Nothing is left in the partition of running runs.
      const unfinished = await db.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: 'work',
          KeyConditionExpression: 'workpk = :p',
          ExpressionAttributeValues: { ':p': 'WFRUN#UNFINISHED' },
        }),
      );
      expect(unfinished.Items).toEqual([]);
    } finally {
      await second?.stop('SIGTERM');
      if (first.child.exitCode === null) await first.stop('SIGKILL');
      await target.close();
    }
  }, 240_000);
});
