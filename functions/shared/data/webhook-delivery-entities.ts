import * as zm from '../zod-mini';
import { defineEntity } from './entity';
import { indexPartitions, sortKeys } from './keys';
import { sparseIndexKey } from './sparse-index';

/**
 * The stored things of webhook delivery (`webhook-deliveries.ts` owns every write to them): a delivery in
 * the event's partition. Its schema is apart from the access patterns so each module stays small.
 */

/** A delivery of an event to an endpoint. `lastStatus` is an HTTP status or a short reason. */
export const WebhookDelivery = /* @__PURE__ */ defineEntity({
  name: 'webhook_delivery',
  key: (eventPartition: string, eventId: string, endpointId: string) => ({
    pk: eventPartition,
    sk: sortKeys.delivery(eventId, endpointId),
  }),
  get schema() {
    return zm.object({
      eventId: zm.string(),
      endpointId: zm.string(),
      resourceId: zm.optional(zm.string()),
      eventType: zm.optional(zm.string()),
      status: zm.enum(['pending', 'delivered', 'failed']),
      attempts: zm.optional(zm.number()),
      lastStatus: zm.optional(zm.nullable(zm.union([zm.number(), zm.string()]))),
      firstAttemptAt: zm.optional(zm.string()),
      lastAttemptAt: zm.optional(zm.string()),
      lastDurationMs: zm.optional(zm.number()),
      nextAttemptAt: zm.optional(zm.string()),
      finishedAt: zm.optional(zm.string()),
      /** Redeliveries so far: names the queue message of each (its de-duplication id). */
      round: zm.optional(zm.number()),
    });
  },
});

/**
 * A delivery's place in its endpoint's log, by event id (ULIDs, so in time order): in the keys-only `work`
 * index, so the updates of a delivery (its retries, its end) write no index entry; deliveries written before
 * it are in `gsi1` under the same partition and sort key (`webhook-delivery-log.ts` reads both).
 */
export const deliveryLogIndexKey = (companyId: string, endpointId: string, eventId: string) =>
  sparseIndexKey(indexPartitions.webhookDeliveryLog(companyId, endpointId), eventId);

/**
 * Where a delivery goes and what it is about: the endpoint, and the resource (a job, a message, a run, a
 * meter) whose events the endpoint receives in order (`domain/events/delivery-queue.ts`: its message group).
 */
export interface DeliveryTarget {
  companyId: string;
  endpointId: string;
  resourceId: string;
}
