import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiOf, demoCompanyId, runAdminInto, startRecordingTarget } from './crash-support';
import { type StackProcess, startStackProcess } from './local-stack-process';
import { eventually } from './webhook-receiver';

type Message = { _id: string; status: string; attempts: number };

/**
 * A message answered 202 and then caught by a crash of the local stack (`kill -9`, before its delivery could
 * end) is delivered after the restart, once: start-up recovery finds it in the partition of undelivered
 * messages and starts its delivery again.
 */
describe('local stack killed right after a message was accepted', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-v1-message-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('delivers the message after the restart, once, and it ends sent', async () => {
    // The channel answers after 3 s: a delivery the crash interrupted cannot have been recorded as sent.
    const target = await startRecordingTarget(3_000);
    const first = await startStackProcess(dataDir);
    let second: StackProcess | undefined;
    try {
      const companyId = await demoCompanyId(first);
      await runAdminInto(first, [
        'channels',
        'set',
        '--company',
        companyId,
        '--url',
        `${target.url}/slow-hook`,
      ]);
      const api = apiOf(first);
      const contact = await api('POST', '/v1/dynadata/type/contacts/create', { name: 'Ada' });
      expect(contact.status, JSON.stringify(contact.json)).toBe(201);
      const contactId = String(contact.json._id);
      const sent = await api('POST', `/v1/contacts/${contactId}/send_message`, {
        type: 'text',
        body: { text: 'Across a crash.' },
      });
      expect(sent.status, JSON.stringify(sent.json)).toBe(202);
      const messageId = String(sent.json.messageId);
      expect(await first.stop('SIGKILL')).toBeNull();
      const arrivedBefore = target.arrived.length;

      second = await startStackProcess(dataDir);
      expect(second.output()).toMatch(/recovered unfinished work: .*message deliveries 1 resumed/);
      const read = async () =>
        (await apiOf(second as StackProcess)('GET', `/v1/dynadata/type/messages/item/${messageId}`))
          .json as unknown as Message;
      const message = await eventually(read, (m) => m.status !== 'queued', 30_000);
      expect(message.status).toBe('sent');
      // Delivered after the restart exactly once (and at most once before the crash, unanswered).
      expect(target.arrived.slice(arrivedBefore)).toEqual(['/slow-hook']);
      expect(arrivedBefore).toBeLessThanOrEqual(1);
    } finally {
      await second?.stop('SIGTERM');
      if (first.child.exitCode === null) await first.stop('SIGKILL');
      await target.close();
    }
  }, 180_000);

  it('sends a scheduled message whose time fell while the stack was down, at start-up', async () => {
    const scheduledDir = mkdtempSync(join(tmpdir(), 'api-v1-message-scheduled-restart-'));
    const target = await startRecordingTarget(0);
    const first = await startStackProcess(scheduledDir);
    let second: StackProcess | undefined;
    try {
      const companyId = await demoCompanyId(first);
      await runAdminInto(first, ['channels', 'set', '--company', companyId, '--url', `${target.url}/later`]);
      const api = apiOf(first);
      const contact = await api('POST', '/v1/dynadata/type/contacts/create', { name: 'Ada' });
      const sendAt = new Date(Date.now() + 2_000).toISOString();
      const sent = await api('POST', `/v1/contacts/${String(contact.json._id)}/send_message`, {
        type: 'text',
        body: { text: 'While down.' },
        sendAt,
      });
      expect(sent.json, JSON.stringify(sent.json)).toMatchObject({ status: 'scheduled', sendAt });
      const messageId = String(sent.json.messageId);
      expect(await first.stop('SIGKILL')).toBeNull();
      // Its time falls while the stack is down: the local scheduler fires no missed time.
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(sendAt) - Date.now()) + 500));
      expect(target.arrived).toEqual([]);

      second = await startStackProcess(scheduledDir);
      expect(second.output()).toMatch(/recovered unfinished work: .*scheduled messages 1 resumed/);
      const read = async () =>
        (await apiOf(second as StackProcess)('GET', `/v1/dynadata/type/messages/item/${messageId}`))
          .json as unknown as Message;
      const message = await eventually(read, (m) => m.status === 'sent', 30_000);
      expect(message.status).toBe('sent');
      expect(target.arrived).toEqual(['/later']);
    } finally {
      await second?.stop('SIGTERM');
      if (first.child.exitCode === null) await first.stop('SIGKILL');
      await target.close();
      rmSync(scheduledDir, { recursive: true, force: true });
    }
  }, 180_000);
});
