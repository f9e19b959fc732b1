import { getDeliveryChannel } from '../../data/delivery-channels';
import { getStoredItem, ItemWriteConflictError, replaceItem } from '../../data/dynadata-items';
import { eventItem } from '../../data/events';
import { env } from '../../env';
import { countWebhookDelivery } from '../../logger';
import type { WebhookDeliveryOutcome } from '../../metric-names';
import { toPublicItem } from '../dynadata/items';
import {
  assertDeliverableHost,
  NoDeliveryChannelError,
  postWebhook,
  signWebhook,
  WebhookRejectedError,
  WebhookRetryableError,
} from './webhooks';

/**
 * Delivery of a stored message to the company's webhook (one attempt; the `message-delivery` state machine
 * retries with backoff). A message moves `queued → sent | failed` by conditional writes only, never back:
 * a late retry of a message already `sent` or `failed` changes nothing. Each attempt is counted by outcome
 * (`WebhookDeliveries`), and so is a message that ends `failed`.
 */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** The event each final status of a message raises. */
const MESSAGE_EVENTS: Record<string, string | undefined> = { sent: 'message.sent', failed: 'message.failed' };

/**
 * Changes a message that is still `queued` (its status, attempts, ...): a transaction conditional on the
 * version read, which also moves the company's database bytes by the size difference. Returns false when
 * the message is gone or no longer queued.
 */
const updateQueuedMessage = async (
  companyId: string,
  messageId: string,
  patch: Record<string, unknown>,
  now: Date,
): Promise<boolean> => {
  for (let attempt = 0; attempt < 5; attempt++) {
    const previous = await getStoredItem(companyId, 'messages', messageId);
    if (previous?.data.status !== 'queued') return false;
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
      return true;
    } catch (error) {
      if (!(error instanceof ItemWriteConflictError)) throw error;
    }
  }
  return false;
};

export interface DeliveryInput {
  companyId: string;
  messageId: string;
}

export const deliverMessage = async (input: DeliveryInput, now = new Date()): Promise<{ status: string }> => {
  const { companyId, messageId } = input;
  const count = (outcome: WebhookDeliveryOutcome) => countWebhookDelivery(outcome, { companyId, messageId });
  const message = await getStoredItem(companyId, 'messages', messageId);
  if (!message) throw new WebhookRejectedError(`message ${messageId} does not exist`);
  if (message.data.status !== 'queued') return { status: String(message.data.status) };
  const channel = await getDeliveryChannel(companyId);
  if (!channel) {
    count('no_channel');
    throw new NoDeliveryChannelError();
  }
  await updateQueuedMessage(companyId, messageId, { attempts: Number(message.data.attempts ?? 0) + 1 }, now);
  const allowLoopback = env().allowLoopbackWebhooks;
  try {
    await assertDeliverableHost(channel.url, allowLoopback);
  } catch (error) {
    if (error instanceof WebhookRejectedError) count('refused_address');
    throw error;
  }
  const contactId = String(message.data.contactId);
  const contact = await getStoredItem(companyId, 'contacts', contactId);
  const timestamp = Math.floor(now.getTime() / 1000);
  const body = JSON.stringify({
    type: 'message.send',
    timestamp: now.toISOString(),
    data: {
      messageId,
      contactId,
      contact: contact ? { _id: contact._id, ...contact.data } : null,
      message: { type: message.data.type, body: message.data.body },
      createdAt: message.createdAt,
    },
  });
  let response: { status: number };
  try {
    response = await postWebhook(
      channel.url,
      {
        'content-type': 'application/json',
        'user-agent': 'public-api-v1-webhooks/1',
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(channel.secret, messageId, timestamp, body),
      },
      body,
      { allowLoopback, timeoutMs: DELIVERY_TIMEOUT_MS },
    );
  } catch (error) {
    // A rejection here is the connect-time address check (the host re-resolved to a refused address).
    if (error instanceof WebhookRejectedError) {
      count('refused_address');
      throw error;
    }
    count('network_error');
    throw new WebhookRetryableError(`webhook request failed: ${(error as Error).message}`);
  }
  if (response.status >= 200 && response.status < 300) {
    count('delivered');
    await updateQueuedMessage(companyId, messageId, { status: 'sent', sentAt: now.toISOString() }, now);
    return { status: 'sent' };
  }
  if (response.status >= 500 || response.status === 408 || response.status === 429) {
    count('server_error');
    throw new WebhookRetryableError(`webhook answered ${response.status}`);
  }
  count('rejected');
  throw new WebhookRejectedError(`webhook answered ${response.status}`);
};

/** The failure path of the state machine: `queued → failed` with the reason. */
export const failMessage = async (
  input: DeliveryInput & { error?: { Error?: string; Cause?: string } },
  now = new Date(),
): Promise<{ status: string }> => {
  const reason = input.error?.Error ?? 'DeliveryFailed';
  const changed = await updateQueuedMessage(
    input.companyId,
    input.messageId,
    { status: 'failed', error: reason },
    now,
  );
  if (changed) countWebhookDelivery('failed', { companyId: input.companyId, messageId: input.messageId });
  return { status: changed ? 'failed' : 'unchanged' };
};
