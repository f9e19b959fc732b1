import { afterEach, describe, expect, it, vi } from 'vitest';
import { ddb } from '../../functions/shared/data/client';
import { INDEX_ATTRIBUTES, listSparsePartition } from '../../functions/shared/data/sparse-index';
import { createDelivery, finishDelivery, recordRetry } from '../../functions/shared/data/webhook-deliveries';
import {
  beginWorkflowStep,
  saveWorkflowRunProgress,
} from '../../functions/shared/data/workflow-runs/progress';
import { finishWorkflowRunItems } from '../../functions/shared/data/workflow-runs/runs';
import { transcodeJobs } from '../../functions/shared/domain/transcodes';
import type { WorkflowRunRecord } from '../../functions/shared/types/workflows';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

/**
 * The keys-only `work` index (`docs/decisions/0040-keys-only-work-index.md`): the updates of running work name
 * no index attribute (so they write nothing to the index), the writes that end it remove the `work` ones and
 * the older `gsi1` ones, and a reader merges both partitions and skips what finished between its two reads.
 */
type Sent = { input: Record<string, unknown> };
type Update = { UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string> };

const capture = (answer: (command: Sent) => unknown = () => ({})) => {
  const sent: Sent[] = [];
  vi.spyOn(ddb, 'send').mockImplementation((async (command: Sent) => {
    sent.push(command);
    return answer(command);
  }) as never);
  return sent;
};

/** The updates of the commands sent, one per UpdateItem or transaction update. */
const updatesOf = (sent: Sent[]): Update[] =>
  sent.flatMap((c) => {
    const items = c.input.TransactItems as { Update?: Update }[] | undefined;
    if (items) return items.flatMap((i) => (i.Update ? [i.Update] : []));
    return c.input.UpdateExpression ? [c.input as Update] : [];
  });

/** The index attributes an update names (sets or removes). */
const indexNamesOf = (update: Update | undefined) =>
  Object.values(update?.ExpressionAttributeNames ?? {}).filter((name) =>
    (INDEX_ATTRIBUTES as readonly string[]).includes(name),
  );

const removedOf = (update: Update | undefined) => {
  const remove = update?.UpdateExpression?.split('REMOVE ')[1]?.split(/ (?:SET|ADD) /)[0] ?? '';
  return remove.split(', ').map((placeholder) => update?.ExpressionAttributeNames?.[placeholder.trim()]);
};

const now = new Date('2026-05-06T07:08:09Z');

afterEach(() => vi.restoreAllMocks());

describe('the work index attributes', () => {
  it('are named by no move of a running job, and removed (with the older gsi1 ones) by its final move', async () => {
    const job = transcodeJobRecord({ status: 'transcoding' }, now);
    const ref = { companyId: job.companyId, jobId: job.jobId, attempt: job.attempt };
    const sent = capture(() => ({ Attributes: job, Item: job }));
    await transcodeJobs.moves.advance({ job: ref, from: ['transcoding'], to: 'finalizing', now });
    const [advance] = updatesOf(sent);
    expect(indexNamesOf(advance)).toEqual([]);
    sent.length = 0;
    await transcodeJobs.moves.complete({
      job: ref,
      from: ['finalizing'],
      billedUnits: 3,
      now,
    });
    const [complete] = updatesOf(sent);
    expect(removedOf(complete)).toEqual(expect.arrayContaining([...INDEX_ATTRIBUTES]));
  });

  it('are named by no step claim or progress of a running run, and removed by its final move', async () => {
    const run = { companyId: 'co_1', runId: 'wr_1', workflowId: 'wf' } as WorkflowRunRecord;
    const sent = capture();
    await beginWorkflowStep(run, 0, 1, now);
    await saveWorkflowRunProgress(
      run,
      0,
      { cursor: 1, logs: [], outputs: {}, files: [], executionTimeMs: 5 },
      now,
      { turn: { from: 1, to: 2 } },
    );
    const updates = updatesOf(sent);
    expect(updates).toHaveLength(2);
    for (const update of updates) expect(indexNamesOf(update)).toEqual([]);
    const [finish] = finishWorkflowRunItems(
      run,
      {
        status: 'success',
        cursor: 1,
        logs: [],
        outputs: {},
        files: [],
        executionTimeMs: 5,
        failedSteps: [],
        dropOutputs: false,
      },
      now,
    );
    expect(removedOf(finish?.Update as Update)).toEqual(expect.arrayContaining([...INDEX_ATTRIBUTES]));
  });
});

describe("a delivery's place in its endpoint's log", () => {
  it('is in the work index, set by its put and named by no retry or end (they write no index entry)', async () => {
    const target = { companyId: 'co_1', endpointId: 'we_1', resourceId: 'tc_1' };
    const sent = capture();
    await createDelivery({ target, eventId: 'evt_1', eventType: 'ping', eventCreatedAt: now });
    const put = sent.find((c) => c.input.Item)?.input.Item as Record<string, unknown>;
    expect(put).toMatchObject({ workpk: 'CO#co_1#WHDL#we_1', worksk: 'evt_1' });
    expect(put).not.toHaveProperty('gsi1pk');
    sent.length = 0;
    const attempt = {
      companyId: 'co_1',
      endpointId: 'we_1',
      eventId: 'evt_1',
      attempts: 1,
      durationMs: 5,
      now,
    };
    await recordRetry({ ...attempt, lastStatus: 503, nextAttemptAt: now });
    await finishDelivery({ ...attempt, status: 'delivered', lastStatus: 200 });
    const updates = updatesOf(sent);
    expect(updates).toHaveLength(2);
    for (const update of updates) expect(indexNamesOf(update)).toEqual([]);
  });
});

describe('listSparsePartition', () => {
  it('reads the keys, then the items still unfinished, merged by key with the items marked in gsi1', async () => {
    const key = (id: string) => ({ pk: `CO#co_1#TRANSCODE`, sk: `JOB#${id}` });
    const work = (id: string) => ({ workpk: 'TRANSCODE#UNFINISHED', worksk: `co_1#${id}` });
    const sent = capture((command) => {
      const input = command.input as {
        IndexName?: string;
        RequestItems?: Record<string, { Keys: object[] }>;
      };
      if (input.IndexName === 'work') {
        return { Items: ['a', 'b', 'c'].map((id) => ({ ...key(id), ...work(id) })) };
      }
      if (input.IndexName === 'gsi1') {
        // Marked before the work index; `c` carries both markers.
        return {
          Items: ['0', 'c'].map((id) => ({
            ...key(id),
            gsi1pk: 'TRANSCODE#UNFINISHED',
            gsi1sk: `co_1#${id}`,
            jobId: id,
          })),
        };
      }
      // `b` finished between the index read and the item read.
      return {
        Responses: {
          'unit-table': [
            { ...key('a'), ...work('a'), jobId: 'a' },
            { ...key('b'), status: 'done', jobId: 'b' },
          ],
        },
      };
    });
    const items = await listSparsePartition('TRANSCODE#UNFINISHED');
    expect(items.map((item) => item.jobId)).toEqual(['0', 'a', 'c']);
    const batch = sent.find((c) => c.input.RequestItems)?.input.RequestItems as Record<
      string,
      { Keys: object[] }
    >;
    expect(batch['unit-table']?.Keys).toEqual([key('a'), key('b')]);
  });
});
