import { createHash } from 'node:crypto';
import { sendToFifoQueue } from '../../aws/queues';
import type { DeliveryTarget } from '../../data/webhook-deliveries';

/**
 * The messages of the `webhook-delivery` FIFO queue: one per delivery to send (and one more per
 * redelivery). The message group is the endpoint and the resource, so SQS hands out a group's next message
 * only once the one before it is deleted: one delivery in flight per endpoint and resource, in the order
 * sent (the dispatcher sends a resource's events in the order they happened), later ones waiting behind a
 * delivery being retried (the worker keeps it at its group's head: `workers/webhook-delivery`). The
 * de-duplication id is the delivery (event and endpoint) and its round, so a repeat of a send within 5
 * minutes (a stream record handled twice, a redelivery asked again) sends nothing.
 */
export interface DeliveryMessage extends DeliveryTarget {
  eventId: string;
  /** The delivery's redelivery count when sent (absent: 0, its first sending). */
  round?: number;
}

/** The message group of a delivery: its endpoint and resource, hashed (within SQS's 128 characters). */
export const deliveryGroup = (target: DeliveryTarget): string =>
  createHash('sha256').update(`${target.companyId}#${target.endpointId}#${target.resourceId}`).digest('hex');

/** The message's de-duplication id: the delivery, and its round after a redelivery. */
export const deliveryDeduplicationId = (message: DeliveryMessage): string =>
  `${message.eventId}#${message.endpointId}${message.round ? `#${message.round}` : ''}`;

/** Sends the message of a delivery to its group (after the group's queued messages). */
export const sendDelivery = (message: DeliveryMessage): Promise<void> =>
  sendToFifoQueue(
    'webhook-delivery',
    {
      companyId: message.companyId,
      endpointId: message.endpointId,
      resourceId: message.resourceId,
      eventId: message.eventId,
      ...(message.round ? { round: message.round } : {}),
    },
    { group: deliveryGroup(message), deduplicationId: deliveryDeduplicationId(message) },
  );

/** A message as the queue hands it over; undefined when it is not a delivery message (never retried). */
export const parseDeliveryMessage = (body: string): DeliveryMessage | undefined => {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    const { companyId, endpointId, resourceId, eventId, round } = value;
    if ([companyId, endpointId, resourceId, eventId].some((v) => typeof v !== 'string' || v === ''))
      return undefined;
    if (round !== undefined && (typeof round !== 'number' || !Number.isInteger(round) || round < 0))
      return undefined;
    return {
      companyId: String(companyId),
      endpointId: String(endpointId),
      resourceId: String(resourceId),
      eventId: String(eventId),
      ...(typeof round === 'number' && round > 0 ? { round } : {}),
    };
  } catch {
    return undefined;
  }
};
