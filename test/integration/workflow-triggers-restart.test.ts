import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { apiOf, demoCompanyId, putWorkflowInto, tableOf } from './crash-support';
import { type StackProcess, startStackProcess, TEST_WEBHOOK_TIMING } from './local-stack-process';
import './support';
import { eventually } from './webhook-receiver';

/**
 * Triggered workflow runs across restarts of the local stack (a crash, a clean stop, and the table's
 * stream handled again from its start): exactly one run per event and workflow; the local scheduler fires
 * a workflow's schedule (every 3 s here, `--schedule-every`), before and after a restart, and a version
 * without the schedule removes it.
 */
const OPTIONS = [...TEST_WEBHOOK_TIMING, '--schedule-every=3s'];
type Entry = { runId: string; status: string; trigger: string };
type Run = { trigger: { type: string; eventId?: string; scheduledAt?: string }; status: string };

const steps = [{ id: 'say', action: 'actions/speech/spoken-text', with: { markdown: 'Run {{ run.id }}.' } }];

describe('workflow triggers across restarts of the local stack', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Raises a `transcode.done` of one resource: its events are dispatched in order, one after another. */
  const raise = async (stack: StackProcess, companyId: string) => {
    const { eventItem } = await import('../../functions/shared/data/events');
    const put = eventItem({
      companyId,
      type: 'transcode.done',
      resourceId: 'tc_restarted',
      data: { id: 'tc_restarted', status: 'done' },
      now: new Date(),
    });
    await tableOf(stack).send(new PutCommand({ ...put.Put, TableName: stack.description.tableName }));
    return String(put.Put.Item.id);
  };

  /** Creates a contact through the API: the dispatcher raises its `dynadata.item.created` from the stream. */
  const contact = async (stack: StackProcess) => {
    const created = await apiOf(stack)('POST', '/v1/dynadata/type/contacts/create', { name: 'Ada' });
    expect(created.status).toBe(201);
    return String(created.json._id);
  };

  const runsOf = async (stack: StackProcess, workflowId: string) =>
    ((await apiOf(stack)('GET', `/v1/workflows/${workflowId}/runs?limit=100`)).json.runs ?? []) as Entry[];

  const runOf = async (stack: StackProcess, workflowId: string, runId: string) =>
    (await apiOf(stack)('GET', `/v1/workflows/${workflowId}/runs/${runId}`)).json.run as Run;

  const finishedRuns = (stack: StackProcess, workflowId: string, atLeast: number) =>
    eventually(
      () => runsOf(stack, workflowId),
      (runs) => runs.filter((r) => r.status !== 'running').length >= atLeast,
      60_000,
    );

  it('starts exactly one run per event after a crash, a clean restart and the stream read again; fires schedules', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-triggers-restart-'));
    dirs.push(dataDir);
    let stack = await startStackProcess(dataDir, OPTIONS);
    try {
      const companyId = await demoCompanyId(stack);
      await putWorkflowInto(stack, companyId, {
        id: 'per-event',
        name: 'One run per event',
        on: { events: ['transcode.done'] },
        steps,
      });
      await putWorkflowInto(stack, companyId, {
        id: 'per-item',
        name: 'One run per created contact',
        on: { events: ['dynadata.item.created'], dynadataTypes: ['contacts'] },
        steps,
        return: { contact: '{{ trigger.event.data._id }}' },
      });
      await putWorkflowInto(stack, companyId, {
        id: 'timed',
        name: 'On a schedule',
        on: { schedule: 'rate(15 minutes)' },
        steps,
      });
      const raised = [await raise(stack, companyId)];
      await finishedRuns(stack, 'per-event', 1);
      const firedBefore = (await finishedRuns(stack, 'timed', 1)).length;
      expect(firedBefore).toBeGreaterThan(0);

      // A crash right after an event is raised: it may or may not have been dispatched yet. A contact
      // created just before it raises its `dynadata.item.created` from the stream, maybe not before the crash
      // (the record is handled again after the restart, and its event put once).
      const contacts = [await contact(stack)];
      raised.push(await raise(stack, companyId));
      contacts.push(await contact(stack));
      await stack.stop('SIGKILL');
      stack = await startStackProcess(dataDir, OPTIONS);
      raised.push(await raise(stack, companyId));
      contacts.push(await contact(stack));
      const timedRuns = await finishedRuns(stack, 'timed', firedBefore + 1);
      expect(timedRuns.length).toBeGreaterThan(firedBefore);
      await stack.stop('SIGTERM');

      // A clean restart that reads the table's stream again from its start: every event is handled twice.
      rmSync(join(dataDir, 'event-stream.json'));
      stack = await startStackProcess(dataDir, OPTIONS);
      raised.push(await raise(stack, companyId));
      // Events of one resource are handled in order: once the last one has its run, the others were handled.
      const runs = await finishedRuns(stack, 'per-event', raised.length);
      expect(runs.map((r) => r.trigger)).toEqual(raised.map(() => 'event'));
      const eventIds = await Promise.all(
        runs.map(async (r) => (await runOf(stack, 'per-event', r.runId)).trigger.eventId),
      );
      expect(eventIds.sort()).toEqual([...raised].sort());
      // One run per created contact, none twice, across the crash and the stream read again.
      const itemRuns = await finishedRuns(stack, 'per-item', contacts.length);
      const started = await Promise.all(
        itemRuns.map(async (r) => {
          const run = (await apiOf(stack)('GET', `/v1/workflows/per-item/runs/${r.runId}`)).json.run;
          return (run as { result: { contact: string } }).result.contact;
        }),
      );
      expect(started.sort()).toEqual([...contacts].sort());

      // Each schedule run is one due time; a version without the schedule removes it.
      const due = await Promise.all(
        (await runsOf(stack, 'timed')).map(async (r) => (await runOf(stack, 'timed', r.runId)).trigger),
      );
      expect(due.every((t) => t.type === 'schedule')).toBe(true);
      expect(new Set(due.map((t) => t.scheduledAt)).size).toBe(due.length);
      const schedules = () =>
        JSON.parse(readFileSync(join(dataDir, 'schedules.json'), 'utf8')) as { expression: string }[];
      expect(schedules().map((s) => s.expression)).toEqual(['rate(15 minutes)']);
      await putWorkflowInto(stack, companyId, { id: 'timed', name: 'No longer timed', steps });
      expect(schedules()).toEqual([]);
    } finally {
      await stack.stop('SIGTERM');
    }
  }, 300_000);
});
