import { afterEach, describe, expect, it, vi } from 'vitest';
import { ddb } from '../../functions/shared/data/client';
import { recordBilledObject } from '../../functions/shared/data/stored-objects';
import { addToMeterItems } from '../../functions/shared/data/usage-meters';

/** A synthesized file is recorded and billed in one transaction whose meter write keeps within the allowance. */
const now = new Date('2026-01-02T03:04:05Z');
const object = {
  bucket: 'unit-bucket',
  fullPath: 'companies/co_unit/speech/a.mp3',
  size: 10,
  contentType: 'audio/mpeg',
  etag: 'e',
  createdAt: now.toISOString(),
};
const cancelled = (codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

afterEach(() => vi.restoreAllMocks());

describe('billing a recorded object', () => {
  it('conditions the meter on the total staying within the limit after the addition', () => {
    const [month, day] = addToMeterItems('co_unit', 'speech_characters', 300, now, { limit: 1000 });
    expect(month?.Update.Key.sk).toBe('M#2026-01');
    expect(month?.Update.ConditionExpression).toBe('attribute_not_exists(#limited) OR #limited < :limit');
    expect(month?.Update.ExpressionAttributeNames['#limited']).toBe('speech_characters');
    // 700 used + 300 = 1000 passes (700 < 701); 701 used would pass the limit and is refused.
    expect(month?.Update.ExpressionAttributeValues?.[':limit']).toBe(701);
    // The day item follows the month item in the same transaction and carries no condition.
    expect(day?.Update.Key.sk).toBe('D#2026-01-02');
    expect(day?.Update).not.toHaveProperty('ConditionExpression');
    for (const item of addToMeterItems('co_unit', 'speech_characters', 300, now)) {
      expect(item.Update).not.toHaveProperty('ConditionExpression');
    }
  });

  it('sends the limit with the transaction and answers meter_limit_reached when the meter refuses', async () => {
    const send = vi.spyOn(ddb, 'send').mockImplementation((async () => {
      throw cancelled(['None', 'None', 'ConditionalCheckFailed']);
    }) as never);
    const outcome = await recordBilledObject('co_unit', object, 1_000_000, {
      name: 'speech_characters',
      amount: 300,
      now,
      limit: 1000,
    });
    expect(outcome).toBe('meter_limit_reached');
    type Sent = {
      input: { TransactItems: { Update?: { ExpressionAttributeValues: Record<string, unknown> } }[] };
    };
    const items = (send.mock.calls[0]?.[0] as Sent | undefined)?.input.TransactItems ?? [];
    expect(items[2]?.Update?.ExpressionAttributeValues[':limit']).toBe(701);
  });

  it('answers storage_limit_reached when the storage total refuses', async () => {
    vi.spyOn(ddb, 'send').mockImplementation((async () => {
      throw cancelled(['None', 'ConditionalCheckFailed', 'None']);
    }) as never);
    expect(
      await recordBilledObject('co_unit', object, 1_000_000, {
        name: 'speech_characters',
        amount: 1,
        now,
        limit: 9,
      }),
    ).toBe('storage_limit_reached');
  });
});
