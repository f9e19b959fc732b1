import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WebhookEvent } from './resources.js';

/**
 * Verification of the platform's webhook deliveries, with the reference `standardwebhooks` package: the
 * platform signs each delivery per Standard Webhooks (`webhook-id` = the event id, `webhook-timestamp` in Unix
 * seconds, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed by the endpoint's
 * `whsec_<base64>` secret). The package checks the signature in constant time and refuses timestamps more
 * than five minutes away from now, so a captured delivery cannot be replayed later. De-duplicate on the
 * returned event's `id`: delivery is at least once.
 */

export { WebhookVerificationError };

/** Request headers as a `Headers`, a Node `IncomingHttpHeaders` or a plain record. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

const headerRecord = (headers: WebhookHeaders): Record<string, string> => {
  const read = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : headers[key];
    return typeof value === 'string' ? value : value?.join(' ');
  };
  const record: Record<string, string> = {};
  for (const name of HEADERS) {
    const value = read(name);
    if (value === undefined) throw new WebhookVerificationError(`Missing required header ${name}`);
    record[name] = value;
  }
  return record;
};

const isWebhookEvent = (value: unknown): value is WebhookEvent =>
  typeof value === 'object' &&
  value !== null &&
  'id' in value &&
  typeof value.id === 'string' &&
  'type' in value &&
  typeof value.type === 'string' &&
  'createdAt' in value &&
  typeof value.createdAt === 'string';

/**
 * Verifies a delivery and returns its event. `payload` is the raw request body, exactly as received (parse
 * it only after verifying). Throws `WebhookVerificationError` when a header is missing, the signature does
 * not match the secret, the timestamp is too old or too new, or the body is not an event.
 */
export const verifyWebhook = (
  secret: string,
  payload: string | Uint8Array,
  headers: WebhookHeaders,
): WebhookEvent => {
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const event = new Webhook(secret).verify(body, headerRecord(headers));
  if (!isWebhookEvent(event)) throw new WebhookVerificationError('The payload is not an event');
  return event;
};
