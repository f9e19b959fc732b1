import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { apiOf, demoCompanyId, putWorkflowInto, startRecordingTarget, tableOf } from './crash-support';
import { type StackProcess, startStackProcess } from './local-stack-process';
import { eventually } from './webhook-receiver';

type Item = { index: number; status: string; error?: { code: string }; attempts: number };
type Run = {
  status: string;
  result: { items: Item[]; succeeded: number; failed: number } | null;
  logs: { step: string; status: string }[];
};

const ITEMS = 8;

/**
 * An async run caught mid-loop by a crash of the local stack (`kill -9`): after the restart the loop goes on
 * from the items recorded so far. No item is called twice: those that ended keep their result, those in
 * flight are recorded as interrupted, and only those never started run.
 */
describe('local stack killed while a forEach step is in flight', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-foreach-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('finishes the loop after the restart with each item called exactly once', async () => {
    const target = await startRecordingTarget(1_500);
    const first = await startStackProcess(dataDir);
    let second: StackProcess | undefined;
    try {
      const companyId = await demoCompanyId(first);
      await putWorkflowInto(first, companyId, {
        id: 'looped',
        name: 'Looped',
        steps: [
          {
            id: 'each',
            action: 'actions/http/request',
            forEach: Array.from({ length: ITEMS }, (_, i) => i),
            concurrency: 2,
            with: { method: 'GET', url: `${target.url}/slow-item/{{ item }}` },
            allowFailure: true,
          },
        ],
        return: { items: '{{ steps.each.output.items }}' },
      });
      const started = await apiOf(first)('POST', '/v1/workflows/looped/run', { mode: 'async' });
      expect(started.status, JSON.stringify(started.json)).toBe(202);
      const runId = String(started.json.runId);
      // Two items ended and the next two are in flight.
      const arrived = await eventually(
        () => target.arrived,
        (a) => a.filter((p) => p.startsWith('/slow-item/')).length >= 4,
        40_000,
      );
      expect(arrived.filter((p) => p.startsWith('/slow-item/')).length).toBeGreaterThanOrEqual(4);
      expect(await first.stop('SIGKILL')).toBeNull();
      const calledBefore = target.arrived.filter((p) => p.startsWith('/slow-item/')).length;
      expect(calledBefore).toBeLessThan(ITEMS);

      second = await startStackProcess(dataDir);
      const api = apiOf(second);
      const run = await eventually(
        async () => (await api('GET', `/v1/workflows/looped/runs/${runId}`)).json.run as Run,
        (r) => r.status !== 'running',
        90_000,
      );
      expect(run.status).toBe('success');
      const items = run.result?.items ?? [];
      expect(items.map((i) => i.index)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
      // Each item reached the target exactly once, before or after the crash.
      for (let i = 0; i < ITEMS; i++) {
        expect(
          target.arrived.filter((p) => p === `/slow-item/${i}`),
          `item ${i}`,
        ).toHaveLength(1);
      }
      // Items in flight at the crash are recorded as interrupted; the others ended well.
      const interrupted = items.filter((i) => i.status === 'failed');
      expect(interrupted.length).toBeGreaterThan(0);
      expect(interrupted.length).toBeLessThanOrEqual(2);
      for (const item of interrupted) expect(item.error?.code).toBe('step_interrupted');
      expect(items.filter((i) => i.status === 'succeeded').length).toBe(ITEMS - interrupted.length);

      // The per-item results live beside the run, one item each.
      const recorded = await tableOf(second).send(
        new QueryCommand({
          TableName: second.description.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :fe)',
          ExpressionAttributeValues: { ':pk': `CO#${companyId}#WFRUN#${runId}`, ':fe': 'FE#each#' },
        }),
      );
      expect(recorded.Items).toHaveLength(ITEMS);
    } finally {
      await second?.stop('SIGTERM');
      if (first.child.exitCode === null) await first.stop('SIGKILL');
      await target.close();
    }
  }, 240_000);
});
