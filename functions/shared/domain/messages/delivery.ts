import { getDeliveryChannel } from '../../data/delivery-channels';
import { getStoredItem } from '../../data/dynadata-items';
import { env } from '../../env';
import type { WebhookDeliveryOutcome } from '../../observability/metric-names';
import { countWebhookDelivery } from '../../observability/metrics';
import { withDownloadUrls } from './file-urls';
import { type DeliveryInput, updateQueuedMessage } from './message-status';
import {
  assertDeliverableHost,
  NoDeliveryChannelError,
  postWebhook,
  signingSecrets,
  signWebhook,
  WebhookRejectedError,
  WebhookRetryableError,
} from './webhooks';

/**
 * Delivery of a stored message to the company's webhook (one attempt; the `message-delivery` state machine
 * retries with backoff). A message moves `queued → sent | failed` by conditional writes only, never back:
 * a late retry of a message already `sent` or `failed` changes nothing. Each attempt is counted by outcome
 * (`WebhookDeliveries`), and so is a message that ends `failed`. The message's `attempts` is written with the
 * attempt's outcome: the move to `sent` carries it, a failed attempt writes it before its error is thrown (one
 * write an attempt); an attempt cut short between its request and that write is made again and counted once.
 */
/** The id of a message's channel delivery: an event id (`evt_` and the message's ULID), the same on every retry. */
export const channelDeliveryId = (messageId: string): string => `evt_${messageId}`;

export const DELIVERY_TIMEOUT_MS = 10_000;

export { type DeliveryInput, failMessage } from './message-status';

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
  // The attempt is counted with its outcome, in the same write: `sent` with the count, or the count alone
  // before an error is thrown (the message read above is written on, read again only if its write is refused).
  const attempts = Number(message.data.attempts ?? 0) + 1;
  const recordAttempt = () => updateQueuedMessage(companyId, messageId, { attempts }, now, message);
  const policy = env().outbound;
  try {
    await assertDeliverableHost(channel.url, policy);
  } catch (error) {
    if (error instanceof WebhookRejectedError) count('refused_address');
    await recordAttempt();
    throw error;
  }
  const contactId = String(message.data.contactId);
  const contact = await getStoredItem(companyId, 'contacts', contactId);
  const timestamp = Math.floor(now.getTime() / 1000);
  // The envelope of every webhook the platform sends (`{id, type, createdAt, data}`, as event endpoints get
  // it): one verifier and one parser serve both. The id is the message's, so every retry carries the same one.
  const deliveryId = channelDeliveryId(messageId);
  const body = JSON.stringify({
    id: deliveryId,
    type: 'message.send',
    createdAt: now.toISOString(),
    data: {
      messageId,
      contactId,
      contact: contact ? { _id: contact._id, ...contact.data } : null,
      // A file message's reference carries a signed download URL (one hour) for the sender.
      message: {
        type: message.data.type,
        body: await withDownloadUrls(companyId, message.data.body as Record<string, unknown>, now),
      },
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
        'webhook-id': deliveryId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signingSecrets(channel, now)
          .map((secret) => signWebhook(secret, deliveryId, timestamp, body))
          .join(' '),
      },
      body,
      { ...policy, timeoutMs: DELIVERY_TIMEOUT_MS },
    );
  } catch (error) {
    await recordAttempt();
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
    await updateQueuedMessage(
      companyId,
      messageId,
      { status: 'sent', sentAt: now.toISOString(), attempts },
      now,
      message,
    );
    return { status: 'sent' };
  }
  await recordAttempt();
  if (response.status >= 500 || response.status === 408 || response.status === 429) {
    count('server_error');
    throw new WebhookRetryableError(`webhook answered ${response.status}`);
  }
  count('rejected');
  throw new WebhookRejectedError(`webhook answered ${response.status}`);
};
