import { describe, expect, it } from 'vitest';
import { eventItem, toEventRecord, workflowRunFinishedEventItem } from '../../functions/shared/data/events';
import { retryDelaySeconds } from '../../functions/shared/domain/events/delivery';

const now = new Date('2026-11-23T04:00:00.000Z');

describe('event transaction items', () => {
  it('puts a new event once, in the company partition, kept 30 days', () => {
    const { Put } = eventItem({
      companyId: 'co_1',
      type: 'transcode.done',
      resourceId: 'tc_1',
      data: { id: 'tc_1' },
      now,
    });
    expect(Put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(Put.Item).toMatchObject({
      pk: 'CO#co_1#EVENT',
      entity: 'event',
      type: 'transcode.done',
      resourceId: 'tc_1',
      createdAt: now.toISOString(),
      data: JSON.stringify({ id: 'tc_1' }),
      ttl: now.getTime() / 1000 + 30 * 86_400,
    });
    expect(Put.Item.sk).toBe(`EV#${Put.Item.id}`);
    expect(Put.Item.id).toMatch(/^evt_[0-9a-z]{26}$/);
  });

  it('gives workflow_run.finished the run as its data, the run id as its resource', () => {
    const run = { runId: 'run_1', workflowId: 'wf_1', status: 'success', ok: true };
    const { Put } = workflowRunFinishedEventItem({ companyId: 'co_1', run, now });
    expect(Put.Item).toMatchObject({ type: 'workflow_run.finished', resourceId: 'run_1' });
    expect(toEventRecord(Put.Item).data).toEqual(run);
  });

  it('keeps data nested deeper than a DynamoDB map allows, and empty keys, as JSON text (packed when long)', () => {
    let deep: unknown = { '': 'empty key' };
    for (let level = 0; level < 40; level++) deep = { level, deep };
    const { Put } = eventItem({
      companyId: 'co_1',
      type: 'workflow_run.finished',
      resourceId: 'r',
      data: deep,
      now,
    });
    expect(Put.Item.data).toBeInstanceOf(Uint8Array);
    expect(toEventRecord(Put.Item).data).toEqual(deep);
  });
});

describe('delivery retry schedule', () => {
  it('doubles from the base up to the cap, with equal jitter', () => {
    // Defaults: 30 s base, 3600 s cap.
    expect(retryDelaySeconds(1, 0)).toBe(15);
    expect(retryDelaySeconds(1, 1)).toBe(30);
    expect(retryDelaySeconds(3, 0.5)).toBe(90);
    expect(retryDelaySeconds(20, 0)).toBe(1800);
    expect(retryDelaySeconds(20, 1)).toBe(3600);
  });

  it('keeps retrying for more than 24 hours with the default window', async () => {
    const { env } = await import('../../functions/shared/env');
    expect(env().webhookDelivery.retryWindowSeconds).toBeGreaterThanOrEqual(24 * 3600);
    expect(env().webhookDelivery.disableAfterSeconds).toBe(3 * 86_400);
  });
});

describe('the webhook-delivery queue’s receives before its dead-letter queue', () => {
  /** Attempts made within `windowSeconds` when every wait is the shortest the jitter allows. */
  const mostAttempts = (windowSeconds: number) => {
    let attempts = 1;
    let elapsed = 0;
    while (elapsed < windowSeconds) {
      elapsed += retryDelaySeconds(attempts, 0);
      attempts += 1;
    }
    return attempts;
  };

  it('outnumber a delivery’s attempts in its window and its group’s until the endpoint is disabled', async () => {
    const { env } = await import('../../functions/shared/env');
    const { WEBHOOK_DELIVERY_MAX_RECEIVES } = await import('../../functions/shared/types/queues');
    const { retryWindowSeconds, disableAfterSeconds } = env().webhookDelivery;
    expect(mostAttempts(retryWindowSeconds)).toBe(61);
    expect(mostAttempts(disableAfterSeconds)).toBeLessThan(160);
    expect(WEBHOOK_DELIVERY_MAX_RECEIVES).toBeGreaterThan(mostAttempts(disableAfterSeconds) + 50);
  });
});
