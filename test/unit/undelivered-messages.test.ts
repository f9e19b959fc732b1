import { beforeEach, describe, expect, it, vi } from 'vitest';

const listed = vi.hoisted(() => ({
  messages: [] as { companyId: string; messageId: string; updatedAt: string }[],
}));
const started = vi.hoisted(() => ({ calls: [] as [string, string][], failFor: new Set<string>() }));

vi.mock('../../functions/shared/data/undelivered-messages', async (original) => ({
  ...(await original<object>()),
  listUndeliveredMessages: async () => listed.messages,
}));
vi.mock('../../functions/shared/domain/messages/send-message', async (original) => ({
  ...(await original<object>()),
  startMessageDelivery: async (companyId: string, messageId: string) => {
    if (started.failFor.has(messageId)) throw new Error('StartExecution refused');
    started.calls.push([companyId, messageId]);
  },
}));

const { MESSAGE_DELIVERY_QUIET_MS, resumeUndeliveredMessages } = await import(
  '../../functions/shared/domain/messages/undelivered'
);

const now = new Date('2026-11-28T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

describe('resumeUndeliveredMessages', () => {
  beforeEach(() => {
    started.calls = [];
    started.failFor = new Set();
  });

  it('restarts only messages quiet for longer than a delivery can run, on AWS', async () => {
    listed.messages = [
      { companyId: 'co_a', messageId: 'm_old', updatedAt: ago(MESSAGE_DELIVERY_QUIET_MS + 1) },
      { companyId: 'co_a', messageId: 'm_running', updatedAt: ago(60_000) },
      { companyId: 'co_b', messageId: 'm_edge', updatedAt: ago(MESSAGE_DELIVERY_QUIET_MS) },
    ];
    expect(await resumeUndeliveredMessages(now)).toEqual({ resumed: 2, waiting: 1, failed: 0 });
    expect(started.calls).toEqual([
      ['co_a', 'm_old'],
      ['co_b', 'm_edge'],
    ]);
  });

  it('restarts every queued message at local start-up, and counts a start that fails without stopping', async () => {
    listed.messages = [
      { companyId: 'co_a', messageId: 'm_1', updatedAt: ago(10) },
      { companyId: 'co_a', messageId: 'm_2', updatedAt: ago(10) },
      { companyId: 'co_b', messageId: 'm_3', updatedAt: ago(10) },
    ];
    started.failFor.add('m_2');
    expect(await resumeUndeliveredMessages(now, { quietForMs: 0 })).toEqual({
      resumed: 2,
      waiting: 0,
      failed: 1,
    });
    expect(started.calls.map(([, id]) => id)).toEqual(['m_1', 'm_3']);
  });
});
