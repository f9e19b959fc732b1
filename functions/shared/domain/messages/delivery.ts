import { getDeliveryChannel } from '../../data/delivery-channels';
import { getStoredItem, setItemStatus } from '../../data/dynadata-items';
import { env } from '../../env';
import {
  assertDeliverableHost,
  NoDeliveryChannelError,
  signWebhook,
  WebhookRejectedError,
  WebhookRetryableError,
} from './webhooks';

/**
 * Delivery of a stored message to the company's webhook (one attempt; the `message-delivery` state machine
 * retries with backoff). A message moves `queued → sent | failed` by conditional writes only, never back:
 * a late retry of a message already `sent` or `failed` changes nothing.
 */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface DeliveryInput {
  companyId: string;
  messageId: string;
}

export const deliverMessage = async (input: DeliveryInput, now = new Date()): Promise<{ status: string }> => {
  const { companyId, messageId } = input;
  const message = await getStoredItem(companyId, 'messages', messageId);
  if (!message) throw new WebhookRejectedError(`message ${messageId} does not exist`);
  if (message.data.status !== 'queued') return { status: String(message.data.status) };
  const channel = await getDeliveryChannel(companyId);
  if (!channel) throw new NoDeliveryChannelError();
  await setItemStatus(
    companyId,
    'messages',
    messageId,
    'queued',
    ['queued'],
    { attempts: Number(message.data.attempts ?? 0) + 1 },
    now,
  );
  const allowLoopback = env().allowLoopbackWebhooks;
  await assertDeliverableHost(channel.url, allowLoopback);
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
  let response: Response;
  try {
    response = await fetch(channel.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'public-api-v1-webhooks/1',
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(channel.secret, messageId, timestamp, body),
      },
      body,
    });
    await response.arrayBuffer().catch(() => undefined);
  } catch (error) {
    throw new WebhookRetryableError(`webhook request failed: ${(error as Error).message}`);
  }
  if (response.status >= 200 && response.status < 300) {
    await setItemStatus(
      companyId,
      'messages',
      messageId,
      'sent',
      ['queued'],
      { sentAt: now.toISOString() },
      now,
    );
    return { status: 'sent' };
  }
  if (response.status >= 500 || response.status === 408 || response.status === 429)
    throw new WebhookRetryableError(`webhook answered ${response.status}`);
  throw new WebhookRejectedError(`webhook answered ${response.status}`);
};

/** The failure path of the state machine: `queued → failed` with the reason. */
export const failMessage = async (
  input: DeliveryInput & { error?: { Error?: string; Cause?: string } },
  now = new Date(),
): Promise<{ status: string }> => {
  const reason = input.error?.Error ?? 'DeliveryFailed';
  const changed = await setItemStatus(
    input.companyId,
    'messages',
    input.messageId,
    'failed',
    ['queued'],
    { error: reason },
    now,
  );
  return { status: changed ? 'failed' : 'unchanged' };
};
