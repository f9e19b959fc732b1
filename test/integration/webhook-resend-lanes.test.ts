import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, runAdmin } from './support';
import { eventually, startReceiver } from './webhook-receiver';

/**
 * `admin webhooks resend-lanes`: the deliveries pending in the webhook lanes of the release before decision
 * 0060 (their messages went with the deleted standard queue) are sent to their FIFO groups in the order the
 * lane would have sent them, ended ones are not, and the lanes are removed, so a second run sends nothing.
 * The lanes are written here in their old shapes: a head item in the `work` index partition
 * `WHLANE#UNFINISHED` and one `Q#<eventId>` entry per queued delivery.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

interface Target {
  companyId: string;
  endpointId: string;
  resourceId: string;
}

/**
 * A company whose endpoint at `path` was created after `count` events of `resourceId` were raised (so the
 * dispatcher sends them nowhere), with their deliveries created `pending` as the release before created them.
 */
const pendingInLane = async (path: string, resourceId: string, count: number) => {
  const { putEvent } = await import('../../functions/shared/data/events');
  const { createDelivery } = await import('../../functions/shared/data/webhook-deliveries');
  const t = await createTenant({ plan: 'starter' });
  const eventIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = await putEvent({
      companyId: t.companyId,
      type: 'transcode.done',
      resourceId,
      data: { id: resourceId },
      now: new Date(),
    });
    eventIds.push(event.id);
  }
  const created = await call('POST', '/v1/webhooks', {
    headers: { 'x-api-key': t.apiKey },
    body: { url: `${receiver.base}${path}`, events: ['*'] },
  });
  expect(created.status).toBe(201);
  const target: Target = {
    companyId: t.companyId,
    endpointId: (created.json.endpoint as { id: string }).id,
    resourceId,
  };
  for (const eventId of eventIds)
    await createDelivery({ target, eventId, eventType: 'transcode.done', eventCreatedAt: new Date() });
  return { target, eventIds };
};

/** A lane as the release before left it waiting for a retry: its head item (`fast`, owner, lease) and entries. */
const writeLane = async (target: Target, lane: { fast?: string; entries: string[] }) => {
  const { ddb, tableName } = await import('../../functions/shared/data/client');
  const { retiredLaneKeys } = await import('../../functions/shared/data/keys');
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const pk = retiredLaneKeys.partition(target.companyId, target.endpointId, target.resourceId);
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        pk,
        sk: retiredLaneKeys.head,
        entity: 'webhook_lane',
        ...target,
        pending: lane.entries.length,
        owner: 't-gone',
        leaseUntil: new Date(Date.now() - 60_000).toISOString(),
        ...(lane.fast ? { fast: lane.fast } : {}),
        workpk: retiredLaneKeys.unfinished,
        worksk: pk,
      },
    }),
  );
  for (const eventId of lane.entries)
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: { pk, sk: retiredLaneKeys.entry(eventId), entity: 'webhook_lane_entry', eventId },
      }),
    );
  return pk;
};

/** The items left in a lane's partition. */
const laneItems = async (pk: string) => {
  const { queryAll, tableName } = await import('../../functions/shared/data/client');
  return queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ConsistentRead: true,
  });
};

interface Report {
  lanes: number;
  sent: { companyId: string; eventId: string }[];
  skipped: { companyId: string; eventId: string; status: string }[];
  changed: unknown[];
}

const resend = async (...args: string[]) => {
  const run = await runAdmin('webhooks', 'resend-lanes', ...args, '--json');
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.out) as Report;
};

const of = (companyId: string, list: { companyId: string; eventId: string }[]) =>
  list.filter((d) => d.companyId === companyId).map((d) => d.eventId);

const idsOf = (path: string) => receiver.of(path).map((r) => String(r.headers['webhook-id']));

/** Let the queue hand out anything still queued. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

describe('admin webhooks resend-lanes', () => {
  it("sends a lane's fast delivery and its queued entries in event order, removes the lane, and a second run sends nothing", async () => {
    const { target, eventIds } = await pendingInLane('/lane', 'tc_lane', 3);
    const [first, second, third] = eventIds as [string, string, string];
    const pk = await writeLane(target, { fast: first, entries: [second, third] });
    await settle();
    expect(idsOf('/lane')).toEqual([]);

    // Pages of one lane each: the listing goes on past a page whose lane was removed.
    const report = await resend('--page-size', '1');
    expect(of(target.companyId, report.sent)).toEqual([first, second, third]);
    expect(of(target.companyId, report.skipped)).toEqual([]);
    expect(report.changed).toEqual([]);
    const got = await eventually(
      () => idsOf('/lane'),
      (ids) => ids.length >= 3,
    );
    expect(got).toEqual([first, second, third]);
    expect(await laneItems(pk)).toEqual([]);

    const again = await resend();
    expect(of(target.companyId, again.sent)).toEqual([]);
    expect(of(target.companyId, again.skipped)).toEqual([]);
    await settle();
    expect(idsOf('/lane')).toEqual([first, second, third]);
  }, 60_000);

  it('does not send an ended delivery a lane names, and prints what it sent and skipped', async () => {
    const { finishDelivery, getDelivery } = await import('../../functions/shared/data/webhook-deliveries');
    const { target, eventIds } = await pendingInLane('/ended', 'tc_ended', 2);
    const [ended, pending] = eventIds as [string, string];
    await finishDelivery({
      ...target,
      eventId: ended,
      status: 'failed',
      attempts: 61,
      lastStatus: 503,
      now: new Date(),
    });
    const pk = await writeLane(target, { fast: ended, entries: [pending] });

    const run = await runAdmin('webhooks', 'resend-lanes');
    expect(run.code).toBe(0);
    expect(run.out).toContain(`sent     ${target.companyId} ${target.endpointId} tc_ended ${pending}`);
    expect(run.out).toContain(`skipped  ${target.companyId} ${target.endpointId} tc_ended ${ended} (failed)`);
    expect(run.out).toMatch(
      /webhooks resend-lanes: \d+ deliveries sent, \d+ skipped \(ended\), \d+ lanes removed/,
    );
    await eventually(
      () => getDelivery(target.companyId, pending, target.endpointId),
      (d) => d?.status === 'delivered',
    );
    await settle();
    expect(idsOf('/ended')).toEqual([pending]);
    expect((await getDelivery(target.companyId, ended, target.endpointId))?.status).toBe('failed');
    expect(await laneItems(pk)).toEqual([]);

    const usage = await runAdmin('webhooks', 'resend-lanes', '--page-size', '0');
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('--page-size must be a whole number');
  }, 60_000);
});
