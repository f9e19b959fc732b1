import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { apiOf, demoCompanyId, tableOf } from './crash-support';
import { type StackProcess, startStackProcess } from './local-stack-process';
import './support';
import { eventually, startReceiver } from './webhook-receiver';

type Delivery = { status: string; attempts: number; lastStatus: string | null };

/**
 * Webhooks across restarts of the local stack, crashes (`kill -9`) and clean stops: an endpoint receives
 * only the events raised after its creation, every delivery ends delivered or failed, and the time the
 * stack was down does not count as time an endpoint was failing.
 */
describe('webhooks across restarts of the local stack', () => {
  const dirs: string[] = [];
  const newDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-v1-webhooks-restart-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Raises an event in the stack's table, as a state change's transaction does. */
  const raise = async (stack: StackProcess, companyId: string, resourceId: string) => {
    const { eventItem } = await import('../../functions/shared/data/events');
    const put = eventItem({
      companyId,
      type: 'transcode.done',
      resourceId,
      data: { id: resourceId },
      now: new Date(),
    });
    await tableOf(stack).send(new PutCommand({ ...put.Put, TableName: stack.description.tableName }));
    return String(put.Put.Item.id);
  };

  const register = async (stack: StackProcess, url: string) =>
    (
      (await apiOf(stack)('POST', '/v1/webhooks', { url, events: ['*'] })).json as {
        endpoint: { id: string };
      }
    ).endpoint.id;

  const deliveryOf = async (stack: StackProcess, eventId: string) =>
    ((await apiOf(stack)('GET', `/v1/events/${eventId}`)).json as { event: { deliveries: Delivery[] } }).event
      .deliveries[0];

  /** Waits until every delivery of the events is recorded as ended (sent and answered is not enough). */
  const settled = (stack: StackProcess, eventIds: string[]) =>
    eventually(
      async () => Promise.all(eventIds.map((id) => apiOf(stack)('GET', `/v1/events/${id}`))),
      (answers) =>
        answers.every((a) =>
          (a.json as { event: { deliveries: Delivery[] } }).event.deliveries.every(
            (d) => d.status !== 'pending',
          ),
        ),
      40_000,
    );

  it('sends an endpoint only the events raised after its creation, after a crash and after a clean restart', async () => {
    const receiver = await startReceiver();
    const dataDir = newDataDir();
    let stack = await startStackProcess(dataDir);
    try {
      const companyId = await demoCompanyId(stack);
      await register(stack, `${receiver.base}/old`);
      // One resource: its events share each endpoint's lane, in order, so an old event sent to the new
      // endpoint would arrive before the new event does.
      const before = [];
      for (let i = 0; i < 5; i++) before.push(await raise(stack, companyId, 'tc_restart1'));
      await eventually(
        () => receiver.of('/old'),
        (r) => r.length >= 5,
        40_000,
      );
      await settled(stack, before);
      await register(stack, `${receiver.base}/new`);
      const raisedAfter: string[] = [];
      for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
        await stack.stop(signal);
        stack = await startStackProcess(dataDir);
        raisedAfter.push(await raise(stack, companyId, 'tc_restart1'));
        await eventually(
          () => [receiver.of('/new'), receiver.of('/old')],
          ([n, o]) => (n?.length ?? 0) >= raisedAfter.length && (o?.length ?? 0) >= 5 + raisedAfter.length,
          40_000,
        );
        await settled(stack, raisedAfter);
      }
      expect(receiver.of('/new').map((r) => r.json.id)).toEqual(raisedAfter);
      expect(receiver.of('/old').map((r) => r.json.id)).toEqual([...before, ...raisedAfter]);
    } finally {
      await stack.stop('SIGTERM');
      await receiver.close();
    }
  }, 240_000);

  it('ends a delivery in flight at a crash as failed when its endpoint was disabled meanwhile', async () => {
    const receiver = await startReceiver();
    receiver.delay('/hang', 60_000);
    const dataDir = newDataDir();
    const first = await startStackProcess(dataDir);
    let second: StackProcess | undefined;
    try {
      const companyId = await demoCompanyId(first);
      const endpointId = await register(first, `${receiver.base}/hang`);
      const eventId = await raise(first, companyId, 'tc_inflight1');
      await eventually(
        () => receiver.arrivals('/hang'),
        (a) => a.length > 0,
        40_000,
      );
      // Disabled while its delivery is in flight (the table stops with the stack: it is written before).
      const { endpointKey } = await import('../../functions/shared/data/webhook-endpoints');
      await tableOf(first).send(
        new UpdateCommand({
          TableName: first.description.tableName,
          Key: endpointKey(companyId, endpointId),
          UpdateExpression: 'SET #status = :disabled, disabledReason = :reason',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':disabled': 'disabled', ':reason': 'Disabled by its owner.' },
        }),
      );
      expect(await first.stop('SIGKILL')).toBeNull();
      second = await startStackProcess(dataDir);
      const ended = await eventually(
        () => deliveryOf(second as StackProcess, eventId),
        (d) => d?.status !== 'pending',
        40_000,
      );
      expect(ended).toMatchObject({ status: 'failed', lastStatus: 'endpoint_disabled' });
    } finally {
      await second?.stop('SIGTERM');
      if (first.child.exitCode === null) await first.stop('SIGKILL');
      await receiver.close();
    }
  }, 240_000);

  it('does not count the time the stack was down as failing: a restart longer than the disable window leaves the endpoint enabled', async () => {
    const receiver = await startReceiver();
    receiver.answer('/flaky', Array(1000).fill(503));
    const dataDir = newDataDir();
    const timing = ['--webhook-retry-cap=2s', '--webhook-retry-window=600s', '--webhook-disable-after=30s'];
    const first = await startStackProcess(dataDir, timing);
    let second: StackProcess | undefined;
    try {
      const companyId = await demoCompanyId(first);
      const endpointId = await register(first, `${receiver.base}/flaky`);
      const eventId = await raise(first, companyId, 'tc_flaky1');
      await eventually(
        () => receiver.arrivals('/flaky'),
        (a) => a.length >= 2,
        40_000,
      );
      expect(await first.stop('SIGKILL')).toBeNull();
      // One more failure after the restart, then the endpoint answers.
      receiver.answer('/flaky', [503]);
      // Down for longer than the disable window.
      await new Promise((r) => setTimeout(r, 32_000));
      const restartedAt = Date.now();
      second = await startStackProcess(dataDir, timing);
      const ended = await eventually(
        () => deliveryOf(second as StackProcess, eventId),
        (d) => d?.status !== 'pending',
        60_000,
      );
      expect(ended).toMatchObject({ status: 'delivered', lastStatus: '200' });
      // The failure after the restart was recorded and did not disable the endpoint; the next try delivered.
      expect(receiver.arrivals('/flaky').filter((a) => a.at >= restartedAt)).toHaveLength(2);
      const endpoint = (await apiOf(second)('GET', `/v1/webhooks/${endpointId}`)).json.endpoint;
      expect(endpoint).toMatchObject({ status: 'enabled', disabledReason: null, failingSince: null });
    } finally {
      await second?.stop('SIGTERM');
      if (first.child.exitCode === null) await first.stop('SIGKILL');
      await receiver.close();
    }
  }, 240_000);
});
