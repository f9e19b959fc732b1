import { SFNClient } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, createTenant } from './support';

const { sendMessageToContact } = await import('../../functions/shared/domain/messages/send-message');

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * send_message stores the message, then starts its delivery. The local Step Functions emulator cannot be made
 * to refuse one start, so the Step Functions client is stubbed here; the message is stored in and read back
 * from the stack's DynamoDB.
 */
describe('send_message whose delivery does not start', () => {
  it('moves the stored message to failed (delivery_start_failed) before answering the error', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const contact = await call('POST', '/v1/dynadata/type/contacts/create', {
      headers,
      body: { name: 'Ada' },
    });
    expect(contact.status).toBe(201);
    const start = vi
      .spyOn(SFNClient.prototype, 'send')
      .mockRejectedValue(Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable' }));
    await expect(
      sendMessageToContact(
        t.companyId,
        contact.json._id as string,
        { type: 'text', body: { text: 'Hello' } },
        new Date(),
      ),
    ).rejects.toThrow('Service unavailable');
    expect(start).toHaveBeenCalled();
    vi.restoreAllMocks();
    const list = await call('POST', '/v1/dynadata/type/messages/list', { headers, body: {} });
    expect(list.status).toBe(200);
    const items = list.json.items as { status: string; error?: string }[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: 'failed', error: 'delivery_start_failed' });
  });
});
