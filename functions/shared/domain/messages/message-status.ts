import {
  getStoredItem,
  ItemWriteConflictError,
  replaceItem,
  type StoredItem,
} from '../../data/dynadata-items';
import { eventItem } from '../../data/events';
import { countWebhookDelivery } from '../../observability/metrics';
import type { EventType } from '../../types/events';
import { toPublicItem } from '../dynadata/items';
import { deliveryFailureReason } from './failure-reason';

/**
 * Status writes of a stored message (`queued → sent | failed`), apart from the delivery itself so that
 * send_message, which only ever marks a message failed, does not carry the webhook client.
 */
export interface DeliveryInput {
  companyId: string;
  messageId: string;
}

/** The event each final status of a message raises. */
const MESSAGE_EVENTS: Record<string, EventType | undefined> = {
  sent: 'message.sent',
  failed: 'message.failed',
};

/**
 * Changes a message that is still `queued` (its status, attempts, ...): a transaction conditional on the
 * version read, which also moves the company's database bytes by the size difference. `known` is the message
 * as the caller last read or wrote it: the write is tried on it first, and the message read again only when
 * that write is refused (its version moved), so a delivery does not read back what it just wrote. Answers the
 * message as written, or undefined when it is gone or no longer queued.
 */
export const updateQueuedMessage = async (
  companyId: string,
  messageId: string,
  patch: Record<string, unknown>,
  now: Date,
  known?: StoredItem,
): Promise<StoredItem | undefined> => {
  for (let attempt = 0; attempt < 5; attempt++) {
    const previous = attempt === 0 && known ? known : await getStoredItem(companyId, 'messages', messageId);
    if (previous?.data.status !== 'queued') return undefined;
    const data = { ...previous.data, ...patch };
    const next = {
      ...previous,
      _version: previous._version + 1,
      updatedAt: now.toISOString(),
      data,
      size: Buffer.byteLength(JSON.stringify(data), 'utf8'),
    };
    const type = MESSAGE_EVENTS[String(patch.status)];
    // The message's move to `sent` or `failed` raises its event in the same transaction.
    const also = type
      ? [eventItem({ companyId, type, resourceId: messageId, data: toPublicItem(next), now })]
      : [];
    try {
      await replaceItem(companyId, 'messages', previous, next, {}, also);
      return next;
    } catch (error) {
      if (!(error instanceof ItemWriteConflictError)) throw error;
    }
  }
  return undefined;
};

/** The failure path of the state machine: `queued → failed` with the reason (`failure-reason.ts`). */
export const failMessage = async (
  input: DeliveryInput & { error?: { Error?: string; Cause?: string } },
  now = new Date(),
): Promise<{ status: string }> => {
  const reason = deliveryFailureReason(input.error);
  const changed =
    (await updateQueuedMessage(
      input.companyId,
      input.messageId,
      { status: 'failed', error: reason },
      now,
    )) !== undefined;
  if (changed) countWebhookDelivery('failed', { companyId: input.companyId, messageId: input.messageId });
  return { status: changed ? 'failed' : 'unchanged' };
};
