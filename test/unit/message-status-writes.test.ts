import { afterEach, describe, expect, it, vi } from 'vitest';

// The message's reads and writes are DynamoDB calls: stubbed here, to count what a status write reads.
vi.mock('../../functions/shared/data/dynadata-items', async (original) => ({
  ...(await original<typeof import('../../functions/shared/data/dynadata-items')>()),
  getStoredItem: vi.fn(),
  replaceItem: vi.fn(),
}));

import {
  getStoredItem,
  ItemWriteConflictError,
  replaceItem,
  type StoredItem,
} from '../../functions/shared/data/dynadata-items';
import { updateQueuedMessage } from '../../functions/shared/domain/messages/message-status';

const message = (version: number, data: Record<string, unknown> = {}): StoredItem => ({
  _id: 'msg_1',
  _version: version,
  createdAt: '2026-11-29T10:00:00.000Z',
  updatedAt: '2026-11-29T10:00:00.000Z',
  data: { status: 'queued', attempts: 0, ...data },
  size: 40,
});
const now = new Date('2026-11-29T10:00:01.000Z');

afterEach(() => {
  vi.mocked(getStoredItem).mockReset();
  vi.mocked(replaceItem).mockReset();
});

describe('a queued message status write', () => {
  it('is tried on the message the caller holds, without reading it back, and answers the message written', async () => {
    vi.mocked(replaceItem).mockResolvedValue(undefined);
    const attempted = await updateQueuedMessage('co_1', 'msg_1', { attempts: 1 }, now, message(1));
    expect(attempted).toMatchObject({ _version: 2, data: { attempts: 1, status: 'queued' } });
    const sent = await updateQueuedMessage('co_1', 'msg_1', { status: 'sent' }, now, attempted);
    expect(sent).toMatchObject({ _version: 3, data: { attempts: 1, status: 'sent' } });
    expect(getStoredItem).not.toHaveBeenCalled();
    // The second write is conditional on the version the first one wrote.
    expect(vi.mocked(replaceItem).mock.calls[1]?.[2]).toMatchObject({ _version: 2 });
  });

  it('reads the message again when the write on the held one is refused, and stops when it is no longer queued', async () => {
    vi.mocked(replaceItem)
      .mockRejectedValueOnce(new ItemWriteConflictError('item'))
      .mockResolvedValue(undefined);
    vi.mocked(getStoredItem).mockResolvedValueOnce(message(5, { attempts: 3 }));
    const written = await updateQueuedMessage('co_1', 'msg_1', { attempts: 4 }, now, message(4));
    expect(written).toMatchObject({ _version: 6, data: { attempts: 4 } });
    expect(getStoredItem).toHaveBeenCalledTimes(1);

    vi.mocked(getStoredItem).mockResolvedValueOnce(message(7, { status: 'sent' }));
    expect(await updateQueuedMessage('co_1', 'msg_1', { attempts: 5 }, now)).toBeUndefined();
    expect(
      await updateQueuedMessage('co_1', 'msg_1', { attempts: 5 }, now, message(7, { status: 'failed' })),
    ).toBe(undefined);
  });
});
