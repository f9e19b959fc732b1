import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook } from '../../../functions/shared/domain/messages/webhooks';
import { verifyWebhook, WebhookVerificationError } from '../../src/webhooks.js';

/**
 * Webhook verification: deliveries signed by the reference package and by the platform's own signer (the
 * one the delivery worker uses) verify; tampered, foreign, stale and incomplete ones are refused.
 */
const secret = `whsec_${randomBytes(24).toString('base64')}`;
const event = {
  id: 'evt_01jd9a7k3m0v5q8r2t6w4y1z3b',
  type: 'ping',
  createdAt: '2026-11-23T04:12:07.412Z',
  data: {},
};
const body = JSON.stringify(event);

const signed = (at = new Date(), payload = body) => ({
  'webhook-id': event.id,
  'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  'webhook-signature': new Webhook(secret).sign(event.id, at, payload),
});

describe('verifyWebhook', () => {
  it('returns the event of a delivery signed per Standard Webhooks', () => {
    expect(verifyWebhook(secret, body, signed())).toEqual(event);
  });

  it("verifies the platform's own signature, from Headers or Node's header record, body as bytes", () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = new Headers({
      'Webhook-Id': event.id,
      'Webhook-Timestamp': String(timestamp),
      'Webhook-Signature': signWebhook(secret, event.id, timestamp, body),
    });
    expect(verifyWebhook(secret, new TextEncoder().encode(body), headers).id).toBe(event.id);
    const record = Object.fromEntries(headers.entries());
    expect(verifyWebhook(secret, body, record).type).toBe('ping');
  });

  it('refuses a tampered body, another secret, a stale timestamp and a missing header', () => {
    const refuses = (run: () => unknown) => expect(run).toThrow(WebhookVerificationError);
    refuses(() => verifyWebhook(secret, body.replace('ping', 'pong'), signed()));
    refuses(() => verifyWebhook(`whsec_${randomBytes(24).toString('base64')}`, body, signed()));
    refuses(() => verifyWebhook(secret, body, signed(new Date(Date.now() - 10 * 60_000))));
    const { 'webhook-signature': _, ...unsigned } = signed();
    refuses(() => verifyWebhook(secret, body, unsigned));
  });

  it('refuses a correctly signed body that is not an event', () => {
    const payload = JSON.stringify({ hello: 'world' });
    expect(() => verifyWebhook(secret, payload, signed(new Date(), payload))).toThrow('not an event');
  });
});
