import { describe, expect, it } from 'vitest';
import { MESSAGES_SCHEMA } from '../../functions/shared/domain/dynadata/builtin-types';
import { validateAgainst } from '../../functions/shared/domain/dynadata/json-schema';

/** Every state a message is written in by the platform satisfies the schema the platform publishes for it. */
describe('the published messages schema', () => {
  const base = { contactId: '01JCONTACT', type: 'text', body: { text: 'Hi' } };

  it.each([
    ['queued', { ...base, status: 'queued', attempts: 0 }],
    ['sent', { ...base, status: 'sent', attempts: 1, sentAt: '2026-01-02T03:04:05.000Z' }],
    ['failed', { ...base, status: 'failed', attempts: 3, error: 'WebhookRejected' }],
    [
      'failed before delivery started',
      { ...base, status: 'failed', attempts: 0, error: 'delivery_start_failed' },
    ],
    [
      'delivered',
      {
        ...base,
        direction: 'outbound',
        status: 'delivered',
        attempts: 1,
        deliveredAt: '2026-01-02T03:04:06.000Z',
      },
    ],
    [
      'read',
      {
        ...base,
        direction: 'outbound',
        status: 'read',
        attempts: 1,
        sentAt: '2026-01-02T03:04:05.000Z',
        deliveredAt: '2026-01-02T03:04:06.000Z',
        readAt: '2026-01-02T03:04:07.000Z',
      },
    ],
    [
      'reported failed',
      {
        ...base,
        direction: 'outbound',
        status: 'failed',
        attempts: 1,
        failedAt: '2026-01-02T03:04:06.000Z',
        failureReason: 'handset unreachable',
      },
    ],
    [
      'received',
      { ...base, direction: 'inbound', status: 'received', receivedAt: '2026-01-02T03:04:05.000Z' },
    ],
    ['scheduled', { ...base, status: 'scheduled', attempts: 0, sendAt: '2026-01-03T09:00:00.000Z' }],
    [
      'canceled',
      {
        ...base,
        status: 'canceled',
        attempts: 0,
        sendAt: '2026-01-03T09:00:00.000Z',
        canceledAt: '2026-01-02T10:00:00.000Z',
      },
    ],
    [
      'sent later',
      {
        ...base,
        status: 'sent',
        attempts: 1,
        sendAt: '2026-01-03T09:00:00.000Z',
        sentAt: '2026-01-03T09:00:01.000Z',
      },
    ],
  ])('accepts a %s message', async (_state, data) => {
    expect(await validateAgainst(MESSAGES_SCHEMA, data)).toEqual([]);
  });
});
