import { SFNClient } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, createContact, createTenant } from './support';

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

  it('answers a scheduled message whose schedule cannot be created, and the sweep sends it once due', async () => {
    const t = await createTenant();
    const headers = { 'x-api-key': t.apiKey };
    const contactId = await createContact(headers, 'Ada');
    // This process has no message schedule settings: creating the schedule fails, after the message's write.
    const { env } = await import('../../functions/shared/env');
    expect(env().messageSchedules).toBeUndefined();
    const sendAt = new Date(Date.now() + 1_000).toISOString();
    const sent = await sendMessageToContact(
      t.companyId,
      contactId,
      { type: 'text', body: { text: 'Hello' }, sendAt },
      new Date(),
    );
    expect(sent).toEqual({ messageId: expect.any(String), status: 'scheduled', sendAt });
    await new Promise((r) => setTimeout(r, 1_500));
    const { releaseDueScheduledMessages } = await import('../../functions/shared/domain/messages/scheduled');
    expect((await releaseDueScheduledMessages(new Date(), { lateByMs: 0 })).released).toBeGreaterThanOrEqual(
      1,
    );
    const read = () => call('GET', `/v1/dynadata/type/messages/item/${sent.messageId}`, { headers });
    const deadline = Date.now() + 30_000;
    let message = await read();
    while (message.json.status === 'queued' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      message = await read();
    }
    // No channel is set for this company: the delivery ran and ended as every undeliverable message does.
    expect(message.json).toMatchObject({
      status: 'failed',
      error: 'no delivery channel is set for the company',
    });
  });
});
