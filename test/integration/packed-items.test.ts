import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { itemSize } from '../bench/request-units';
import { call, createTenant, waitForSettled } from './support';
import { type Job, storeSource, enqueue as transcribe, waitForJob } from './transcription-support';
import { getRun, runWorkflow, savedWorkflow, waitForRun } from './workflow-support';

/**
 * Long JSON attributes are stored packed (`functions/shared/data/packed-json.ts`): the finished run's event,
 * the run item, a transcript in its job, its reuse entry and its event. Every read answers the same bytes
 * whether the item was written packed or before packing (plain JSON text, a list, a map), and the items of
 * a run of a few steps stay within 1 KB (one billed write unit, two in a transaction).
 */
type Item = Record<string, unknown>;

const data = async () => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { GetCommand, PutCommand, QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const packed = await import('../../functions/shared/data/packed-json');
  const get = async (Key: { pk: string; sk: string }) =>
    (await ddb.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item as Item;
  const put = (Item: Item) => ddb.send(new PutCommand({ TableName: tableName(), Item }));
  const firstOf = async (pk: string, prefix: string) =>
    (
      await ddb.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        }),
      )
    ).Items?.[0] as Item;
  /** An attribute as it was stored before packing: JSON text stays text, a packed text becomes it again. */
  const asText = (value: unknown) =>
    value instanceof Uint8Array ? packed.unpackText(value) : (value as string | undefined);
  /** A list or map attribute as it was stored before packing. */
  const asValue = (value: unknown) => (value === undefined ? undefined : packed.readPacked(value));
  return { get, put, firstOf, asText, asValue };
};

const size = (item: Item) => itemSize(marshall(item, { removeUndefinedValues: true }));

const body = async (path: string, apiKey: string) => {
  const res = await call('GET', path, { headers: { 'x-api-key': apiKey } });
  expect(res.status, path).toBe(200);
  return JSON.stringify(res.json);
};

describe('packed items read back as they were written', () => {
  it.each([
    [3, 'sync'],
    [5, 'async'],
    [5, 'sync'],
  ] as const)(
    'a %s-step %s run: run item and finished event within 1 KB, old forms read the same',
    async (steps, mode) => {
      const { get, put, asText, asValue } = await data();
      const { workflowRunKey } = await import('../../functions/shared/data/workflow-runs/runs');
      const { eventKey } = await import('../../functions/shared/data/events');
      const t = await createTenant({ plan: 'starter' });
      const id = `packed-${steps}-${mode}`;
      await savedWorkflow(t.companyId, {
        id,
        name: id,
        steps: Array.from({ length: steps }, (_, i) => ({
          id: `s${i}`,
          action: 'actions/speech/spoken-text',
          with: { markdown: 'Hi.' },
        })),
      });
      const started = await runWorkflow(t.apiKey, id, { mode, input: { note: 'x'.repeat(300) } });
      expect([200, 202]).toContain(started.status);
      const runId = String(started.json.runId);
      const run = await waitForRun(t.apiKey, id, runId);
      expect(run.status).toBe('success');

      // The run item: logs (and the long input) packed, within 1 KB.
      const runItem = await get(workflowRunKey(t.companyId, runId));
      expect(runItem.logs).toBeInstanceOf(Uint8Array);
      expect(runItem.input).toBeInstanceOf(Uint8Array);
      expect(size(runItem)).toBeLessThanOrEqual(1024);

      // Its workflow_run.finished event: data packed, within 1 KB.
      const events = await call('GET', '/v1/events?type=workflow_run.finished', {
        headers: { 'x-api-key': t.apiKey },
      });
      const listed = (events.json.events as { id: string; data: { runId: string } }[]).find(
        (e) => e.data.runId === runId,
      );
      expect(listed).toBeDefined();
      const eventId = (listed as { id: string }).id;
      const eventItem = await get(eventKey(t.companyId, eventId));
      expect(eventItem.data).toBeInstanceOf(Uint8Array);
      expect(size(eventItem)).toBeLessThanOrEqual(1024);

      const reads = async () => ({
        run: await body(`/v1/workflows/${id}/runs/${runId}`, t.apiKey),
        runWithOutputs: await body(`/v1/workflows/${id}/runs/${runId}?includeStepOutputs=true`, t.apiKey),
        event: await body(`/v1/events/${eventId}`, t.apiKey),
        list: await body('/v1/events?type=workflow_run.finished', t.apiKey),
      });
      const packedReads = await reads();
      expect(JSON.parse(packedReads.run).run).toEqual((await getRun(t.apiKey, id, runId)).json.run);
      expect(JSON.parse(packedReads.event).event.data).toEqual(JSON.parse(packedReads.run).run);

      // The same items as written before packing: JSON text, lists and maps.
      await put({
        ...runItem,
        input: asText(runItem.input),
        result: asText(runItem.result),
        logs: asValue(runItem.logs),
        outputs: asValue(runItem.outputs),
      });
      await put({ ...eventItem, data: asText(eventItem.data) });
      expect(await reads()).toEqual(packedReads);
      // And the oldest events, data as a map: the same JSON (its members in the order the table keeps them).
      await put({ ...eventItem, data: JSON.parse(asText(eventItem.data) as string) });
      const mapReads = await reads();
      expect(mapReads.run).toBe(packedReads.run);
      expect(JSON.parse(mapReads.event)).toEqual(JSON.parse(packedReads.event));
      expect(JSON.parse(mapReads.list)).toEqual(JSON.parse(packedReads.list));
    },
  );

  it('a transcript: reuse entry and transcription.done event packed; old forms read the same', async () => {
    const { get, put, firstOf, asText, asValue } = await data();
    const { transcriptionJobs } = await import('../../functions/shared/domain/transcriptions');
    const { eventKey } = await import('../../functions/shared/data/events');
    const t = await createTenant({ plan: 'starter' });
    const first = await storeSource(t.companyId, 'dashwood', { name: 'a.wav' });
    const a = await waitForJob(t.apiKey, ((await transcribe(t.apiKey, first)).json.job as Job).id);
    expect(a.status).toBe('done');

    const lifecycle = transcriptionJobs.lifecycle;
    // The job keeps its result as a map: its GET answers the members in the order the table keeps them.
    const jobItem = await get(lifecycle.jobKey(t.companyId, a.id));
    expect(jobItem.result).not.toBeInstanceOf(Uint8Array);
    const reuseItem = await firstOf(lifecycle.jobKey(t.companyId, '').pk, 'REUSE#');
    expect(reuseItem.result).toBeInstanceOf(Uint8Array);
    await waitForSettled(t.apiKey, 'transcription.done', a.id);
    const events = await call('GET', '/v1/events?type=transcription.done', {
      headers: { 'x-api-key': t.apiKey },
    });
    const eventId = (events.json.events as { id: string }[])[0]?.id as string;
    const eventItem = await get(eventKey(t.companyId, eventId));
    expect(eventItem.data).toBeInstanceOf(Uint8Array);
    // A few KB where the plain forms were ten.
    for (const item of [reuseItem, eventItem]) expect(size(item)).toBeLessThan(size(jobItem) / 2);

    const reads = async () => ({
      job: await body(`/v1/transcriptions/${a.id}`, t.apiKey),
      event: await body(`/v1/events/${eventId}`, t.apiKey),
    });
    const packedReads = await reads();
    expect(JSON.parse(packedReads.event).event.data).toEqual(a);

    // Written before packing: the reuse entry's result a map, the event's data JSON text.
    await put({ ...reuseItem, result: asValue(reuseItem.result) });
    await put({ ...eventItem, data: asText(eventItem.data) });
    expect(await reads()).toEqual(packedReads);
    // The old reuse entry still answers a new job of the same content with the same result.
    const second = await storeSource(t.companyId, 'dashwood', { name: 'b.wav' });
    const b = await waitForJob(t.apiKey, ((await transcribe(t.apiKey, second)).json.job as Job).id);
    expect(b).toMatchObject({ status: 'done', reused: true, result: a.result });
  });
});
