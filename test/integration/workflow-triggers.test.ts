import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { call, createTenant } from './support';
import { storeSource, waitForJob } from './transcode-support';
import { eventually } from './webhook-receiver';
import { getRun, putWorkflow, type RunBody, savedWorkflow, waitForRun } from './workflow-support';

/**
 * Workflows started by events of their company (`on.events`): one run per event, with the event as the
 * run's trigger; never by another company's events; a run over the monthly allowance is recorded failed.
 */
type RunEntry = { runId: string; status: string; trigger: string };
type TriggeredRun = RunBody & { trigger: { type: string; eventId?: string; eventType?: string } };

const runsOf = async (apiKey: string, workflowId: string) => {
  const res = await call('GET', `/v1/workflows/${workflowId}/runs`, { headers: { 'x-api-key': apiKey } });
  expect(res.status).toBe(200);
  return res.json.runs as RunEntry[];
};

const onTranscodeDone = (id: string) => ({
  id,
  name: 'After a transcode',
  on: { events: ['transcode.done'] },
  steps: [
    {
      id: 'say',
      action: 'actions/speech/spoken-text',
      with: { markdown: 'Job {{ trigger.event.data.id }} is {{ trigger.event.data.status }}.' },
    },
  ],
  return: {
    job: '{{ trigger.event.data.id }}',
    kind: '{{ trigger.type }}',
    text: '{{ steps.say.output.text }}',
  },
});

/** Raises an event of the company in the table, as a job's final move does. */
const raise = async (companyId: string, resourceId: string) => {
  const { eventItem } = await import('../../functions/shared/data/events');
  const { ddb } = await import('../../functions/shared/data/client');
  const put = eventItem({
    companyId,
    type: 'transcode.done',
    resourceId,
    data: { id: resourceId, status: 'done' },
    now: new Date(),
  });
  await ddb.send(new PutCommand(put.Put));
  return String(put.Put.Item.id);
};

const waitForRuns = (apiKey: string, workflowId: string, count: number) =>
  eventually(
    () => runsOf(apiKey, workflowId),
    (runs) => runs.length >= count && runs.every((r) => r.status !== 'running'),
    40_000,
  );

describe('workflow triggers: on.events', () => {
  it('refuses triggers that are not valid, with a pointer to each', async () => {
    const t = await createTenant();
    const saved = await putWorkflow(t.companyId, {
      id: 'bad-on',
      name: 'Bad',
      input: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
      on: {
        events: ['transcode.done', 'workflow_run.finished', 'transcode.done'],
        schedule: 'rate(1 minute)',
      },
      steps: [{ id: 's', action: 'actions/speech/spoken-text', with: { markdown: 'x' } }],
    });
    expect(saved.code).toBe(1);
    const pointers = (JSON.parse(saved.err) as { errors: { pointer: string }[] }).errors.map(
      (e) => e.pointer,
    );
    expect(pointers.sort()).toEqual(['/on', '/on/events/1', '/on/events/2', '/on/schedule']);
  });

  it('starts one run per transcode.done of the company, with the event as its trigger, and none for another company', async () => {
    const a = await createTenant({ plan: 'starter' });
    const b = await createTenant();
    await savedWorkflow(a.companyId, onTranscodeDone('after-transcode'));
    await savedWorkflow(b.companyId, onTranscodeDone('after-transcode'));
    const source = await storeSource(a.companyId, 'tone', { seconds: 2 });
    const enqueued = await call('POST', '/v1/transcodes', {
      headers: { 'x-api-key': a.apiKey },
      body: { ...source, preset: 'wav' },
    });
    expect(enqueued.status).toBe(202);
    const jobId = String((enqueued.json.job as { id: string }).id);
    expect((await waitForJob(a.apiKey, jobId)).status).toBe('done');

    const [entry] = await waitForRuns(a.apiKey, 'after-transcode', 1);
    expect(entry).toMatchObject({ trigger: 'event', status: 'success' });
    const run = (await getRun(a.apiKey, 'after-transcode', String(entry?.runId))).json.run as TriggeredRun;
    const events = await call('GET', '/v1/events?type=transcode.done', {
      headers: { 'x-api-key': a.apiKey },
    });
    const [event] = events.json.events as { id: string; data: { id: string } }[];
    expect(event?.data.id).toBe(jobId);
    expect(run.trigger).toEqual({ type: 'event', eventId: event?.id, eventType: 'transcode.done' });
    expect(run.result).toMatchObject({ job: jobId, kind: 'event' });
    expect(String(run.result?.text)).toContain(jobId);

    // Another company's event starts its own workflow; once it has, this company's still has its one run.
    await raise(b.companyId, 'tc_other_company');
    await waitForRuns(b.apiKey, 'after-transcode', 1);
    expect(await runsOf(a.apiKey, 'after-transcode')).toHaveLength(1);
    expect(await runsOf(b.apiKey, 'after-transcode')).toHaveLength(1);
  }, 90_000);

  it('counts triggered runs, and records one over the monthly allowance as failed with workflow_quota_exceeded', async () => {
    const t = await createTenant({ limits: { workflowRunsPerMonth: 1 } });
    await savedWorkflow(t.companyId, onTranscodeDone('over-quota'));
    await raise(t.companyId, 'tc_within_quota');
    await waitForRuns(t.apiKey, 'over-quota', 1);
    await raise(t.companyId, 'tc_over_quota');
    const [refused, counted] = await waitForRuns(t.apiKey, 'over-quota', 2);
    expect(counted).toMatchObject({ trigger: 'event', status: 'success' });
    expect(refused).toMatchObject({ trigger: 'event', status: 'failed' });
    const run = await waitForRun(t.apiKey, 'over-quota', String(refused?.runId));
    expect(run.error?.code).toBe('workflow_quota_exceeded');
    expect(run.logs).toEqual([]);
  }, 60_000);
});
