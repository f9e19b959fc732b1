import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ddb } from '../../functions/shared/data/client';
import {
  ItemWriteConflictError,
  insertItem,
  removeItem,
  replaceItem,
  type StoredItem,
} from '../../functions/shared/data/dynadata-items';

/**
 * Item writes (message status changes among them) are transactions that touch the company's hot
 * `databaseBytes` total. DynamoDB Local serialises transactions, so the `TransactionConflict` cancellation
 * DynamoDB answers under concurrent writes is injected into the one client of the process.
 */
const canceled = (codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

const conflictThenPass = (conflicts: number, codes = ['None', 'None', 'TransactionConflict']) => {
  let calls = 0;
  return vi.spyOn(ddb, 'send').mockImplementation((async () => {
    calls += 1;
    if (calls <= conflicts) throw canceled(codes);
    return {};
  }) as never);
};

const item = (version: number, size: number): StoredItem => ({
  _id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
  _version: version,
  createdAt: '2026-01-02T03:04:05.000Z',
  updatedAt: '2026-01-02T03:04:05.000Z',
  data: { status: version === 1 ? 'queued' : 'sent' },
  size,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('dynadata item transactions retry TransactionConflict', () => {
  it.each([
    ['insert', () => insertItem('co_unit', 'messages', item(1, 40), {})],
    [
      'replace (a message status change)',
      () => replaceItem('co_unit', 'messages', item(1, 40), item(2, 60), {}),
    ],
    ['remove', () => removeItem('co_unit', 'messages', item(1, 40), {})],
  ])('%s succeeds after conflicts on the company totals', async (_name, write) => {
    const send = conflictThenPass(2);
    await expect(write()).resolves.toBeUndefined();
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('does not retry a failed condition and maps it to the item conflict', async () => {
    const send = conflictThenPass(100, ['ConditionalCheckFailed', 'None', 'None']);
    await expect(replaceItem('co_unit', 'messages', item(1, 40), item(2, 60), {})).rejects.toBeInstanceOf(
      ItemWriteConflictError,
    );
    expect(send).toHaveBeenCalledTimes(1);
  });
});

describe('item writes of types whose events come from the stream (decision 0063)', () => {
  const recordCommands = () => {
    const sent: { name: string; input: Record<string, unknown> }[] = [];
    // Every document client: a one-action transaction goes out as that single write through its own (0052).
    vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation((async (command: {
      constructor: { name: string };
      input: never;
    }) => {
      sent.push({ name: command.constructor.name, input: command.input });
      return {};
    }) as never);
    return sent;
  };

  it('writes a contact alone: one conditional Put or Delete, no counter, no event', async () => {
    const sent = recordCommands();
    await insertItem('co_unit', 'contacts', item(1, 40), { hop: 2 });
    await replaceItem('co_unit', 'contacts', item(1, 40), item(2, 60), {});
    await removeItem('co_unit', 'contacts', { ...item(2, 60), streamed: true }, {});
    expect(sent.map((c) => c.name)).toEqual(['PutCommand', 'PutCommand', 'DeleteCommand']);
    // The hop is stored when above 0, and left out at 0 (the whole item is put); every item put is marked.
    expect((sent[0]?.input as { Item?: Record<string, unknown> } | undefined)?.Item?._hop).toBe(2);
    for (const put of sent.slice(0, 2))
      expect((put.input as { Item?: Record<string, unknown> }).Item?._streamed).toBe(true);
    expect((sent[1]?.input as { Item?: Record<string, unknown> } | undefined)?.Item ?? {}).not.toHaveProperty(
      '_hop',
    );
    expect(sent[1]?.input).toHaveProperty('Item');
  });

  it("writes a custom type's item with its counter and no event", async () => {
    const sent = recordCommands();
    await insertItem('co_unit', 'orders', item(1, 40), { customTypeVersion: 3 });
    expect(sent.map((c) => c.name)).toEqual(['TransactWriteCommand']);
    const actions =
      (sent[0]?.input as { TransactItems?: Record<string, { Key?: { sk: string } }>[] } | undefined)
        ?.TransactItems ?? [];
    expect(actions.map((a) => Object.keys(a)[0])).toEqual(['Put', 'Update']);
    expect(actions[1]?.Update?.Key?.sk).toBe('TYPECOUNT#orders');
  });

  it('marks an item with the hop of its delete (and a swept one quiet) first, only when it shows another', async () => {
    const sent = recordCommands();
    await removeItem('co_unit', 'contacts', { ...item(2, 60), hop: 1, streamed: true }, {}, { hop: 1 });
    expect(sent.map((c) => c.name)).toEqual(['DeleteCommand']);
    sent.length = 0;
    await removeItem('co_unit', 'contacts', { ...item(2, 60), hop: 1, streamed: true }, {}, {});
    expect(sent.map((c) => c.name)).toEqual(['UpdateCommand', 'DeleteCommand']);
    expect(
      String((sent[1]?.input as { ConditionExpression?: string } | undefined)?.ConditionExpression),
    ).toContain('attribute_not_exists(#hop)');
    sent.length = 0;
    await removeItem('co_unit', 'orders', { ...item(2, 60), streamed: true }, {}, { quiet: true });
    expect(sent.map((c) => c.name)).toEqual(['UpdateCommand', 'TransactWriteCommand']);
    // An item written before change events came from the stream is marked before its delete, which holds the mark.
    sent.length = 0;
    await removeItem('co_unit', 'contacts', item(2, 60), {}, {});
    expect(sent.map((c) => c.name)).toEqual(['UpdateCommand', 'DeleteCommand']);
    expect(JSON.stringify(sent[0]?.input)).toContain('_streamed');
    expect(
      String((sent[1]?.input as { ConditionExpression?: string } | undefined)?.ConditionExpression),
    ).toContain('#streamed = :true');
  });
});
