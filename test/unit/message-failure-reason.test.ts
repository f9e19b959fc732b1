import { describe, expect, it } from 'vitest';
import { deliveryFailureReason } from '../../functions/shared/domain/messages/failure-reason';

describe('deliveryFailureReason', () => {
  it('records the message of a known delivery error, as Lambda reports it on AWS', () => {
    const cause = JSON.stringify({
      errorType: 'WebhookRejectedError',
      errorMessage: 'webhook answered 404',
      trace: ['WebhookRejectedError: webhook answered 404', '    at deliverMessage (/var/task/index.js:1:1)'],
    });
    expect(deliveryFailureReason({ Error: 'WebhookRejectedError', Cause: cause })).toBe(
      'webhook answered 404',
    );
  });

  it('records the message of a known delivery error, as the local interpreter reports it', () => {
    expect(deliveryFailureReason({ Error: 'WebhookRetryableError', Cause: 'webhook answered 503' })).toBe(
      'webhook answered 503',
    );
    expect(
      deliveryFailureReason({
        Error: 'NoDeliveryChannelError',
        Cause: 'no delivery channel is set for the company',
      }),
    ).toBe('no delivery channel is set for the company');
  });

  it('never records the internals of an unexpected error', () => {
    const cause = JSON.stringify({ errorType: 'Error', errorMessage: 'connect ECONNREFUSED 10.0.3.7:8000' });
    expect(deliveryFailureReason({ Error: 'Error', Cause: cause })).toBe('delivery failed (Error)');
    expect(deliveryFailureReason({ Error: 'States.Timeout', Cause: '' })).toBe('delivery timed out');
    expect(deliveryFailureReason(undefined)).toBe('delivery failed');
  });

  it('bounds the recorded reason', () => {
    const reason = deliveryFailureReason({ Error: 'WebhookRejectedError', Cause: 'x'.repeat(5000) });
    expect(reason.length).toBeLessThanOrEqual(300);
  });
});

describe('a delivery that never started', () => {
  it('keeps its own code as the reason', () => {
    expect(deliveryFailureReason({ Error: 'delivery_start_failed' })).toBe('delivery_start_failed');
  });
});
