import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ddb } from '../../functions/shared/data/client';
import { recordBilledObject } from '../../functions/shared/data/stored-objects';
import { addToMeterItems, usageItems } from '../../functions/shared/data/usage-meters';

/** A synthesized file is recorded and billed in one transaction whose meter write keeps within the allowance. */
const now = new Date('2026-01-02T03:04:05Z');
/** A month after every month item that may hold billed figures: the allowance is the family item's alone. */
const later = new Date('2027-03-02T03:04:05Z');
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
  it('conditions the meter on the total staying within the limit after the addition, in one item', async () => {
    const items = await addToMeterItems('co_unit', 'speech_characters', 300, later, 1000);
    expect(items).toHaveLength(1);
    const family = items[0]?.Update;
    expect(family?.Key.sk).toBe('M#2027-03#speech');
    expect(family?.ConditionExpression).toBe('attribute_not_exists(#limited) OR #limited < :limit');
    expect(family?.ExpressionAttributeNames['#limited']).toBe('speech_characters');
    // 700 used + 300 = 1000 passes (700 < 701); 701 used would pass the limit and is refused.
    expect(family?.ExpressionAttributeValues?.[':limit']).toBe(701);
    // The same action adds to the month total and to the day's count (`s02`).
    const added = Object.values(family?.ExpressionAttributeNames ?? {});
    expect(added).toEqual(expect.arrayContaining(['speech_characters', 's02']));
    expect(family?.UpdateExpression).toMatch(/^SET .* ADD /);
    for (const item of usageItems('co_unit', later, { speech_characters: 300 })) {
      expect(item.Update).not.toHaveProperty('ConditionExpression');
    }
  });

  it('takes what the month item counted before the families off the allowance', async () => {
    const send = vi.spyOn(ddb, 'send').mockImplementation((async (command: unknown) => {
      expect(command).toBeInstanceOf(GetCommand);
      return { Item: { speech_characters: 950 } };
    }) as never);
    const [item] = await addToMeterItems('co_unit', 'speech_characters', 100, now, 1000);
    expect(send).toHaveBeenCalledTimes(1);
    // 50 left for the family item, less than the 100 asked: an absent total fails the comparison too.
    expect(item?.Update.ConditionExpression).toBe('#limited < :limit');
    expect(item?.Update.ExpressionAttributeValues?.[':limit']).toBe(-49);
  });

  it('sends the limit with the transaction and answers meter_limit_reached when the meter refuses', async () => {
    const send = vi.spyOn(ddb, 'send').mockImplementation((async () => {
      throw cancelled(['None', 'None', 'ConditionalCheckFailed']);
    }) as never);
    const outcome = await recordBilledObject('co_unit', object, 1_000_000, {
      name: 'speech_characters',
      amount: 300,
      now: later,
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
        now: later,
        limit: 9,
      }),
    ).toBe('storage_limit_reached');
  });
});
