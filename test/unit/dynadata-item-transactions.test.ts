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
