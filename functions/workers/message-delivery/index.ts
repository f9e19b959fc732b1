import { type DeliveryInput, deliverMessage, failMessage } from '../../shared/domain/messages/delivery';
import { createHandler } from '../../shared/pipeline/handler';

type DeliveryTask = DeliveryInput & {
  action: 'deliver' | 'fail';
  error?: { Error?: string; Cause?: string };
};

/**
 * Task worker of the `message-delivery` state machine. `action: deliver` makes one delivery attempt (errors
 * keep their names, `WebhookRetryableError` is retried by the machine); `action: fail` records the failure.
 */
export const handler = createHandler(
  (event: DeliveryTask): Promise<{ status: string }> =>
    event.action === 'fail' ? failMessage(event) : deliverMessage(event),
  ({ companyId, messageId }) => ({ companyId, messageId }),
);
