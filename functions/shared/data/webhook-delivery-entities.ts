import * as zm from '../zod-mini';
import { defineEntity } from './entity';
import { indexPartitions, partitions, sortKeys } from './keys';
import { sparseIndexKey } from './sparse-index';

/**
 * The stored things of webhook delivery (`webhook-deliveries.ts` owns every write to them): a delivery in
 * the event's partition, and a lane's head item and queue entries in the lane's partition. Their schemas
 * are apart from the access patterns so each module stays small.
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

/** A lane: the deliveries of one endpoint and one resource, sent in order (`webhook-deliveries.ts`). */
export interface LaneRef {
  companyId: string;
  endpointId: string;
  resourceId: string;
}

export const lanePartition = (lane: LaneRef) =>
  partitions.webhookLanes(lane.companyId, lane.endpointId, lane.resourceId);

/** The sparse `work` partition of lanes with deliveries to send (`sparse-index.ts`). */
export const UNFINISHED_LANES_PARTITION = indexPartitions.unfinishedWebhookLanes();

/** A lane's place in the unfinished partition. */
export const unfinishedLaneIndexKey = (lane: LaneRef) =>
  sparseIndexKey(UNFINISHED_LANES_PARTITION, lanePartition(lane));

/**
 * A lane's head item: its identity, the number of pending deliveries (entries), the owner with its lease, and
 * the delivery taken on the idle-lane fast path (`fast`: no entry, not counted); in the unfinished partition
 * while it has deliveries to send (its enqueue or fast take writes it, its release removes it).
 */
export const WebhookLane = /* @__PURE__ */ defineEntity({
  name: 'webhook_lane',
  key: (lanePartition: string) => ({ pk: lanePartition, sk: sortKeys.webhookLane }),
  get schema() {
    return zm.object({
      companyId: zm.string(),
      endpointId: zm.string(),
      resourceId: zm.string(),
      pending: zm.optional(zm.number()),
      owner: zm.optional(zm.string()),
      leaseUntil: zm.optional(zm.string()),
      /** The delivery (its event id) the owner carries with no entry: the lane was idle when it came. */
      fast: zm.optional(zm.string()),
    });
  },
  index: unfinishedLaneIndexKey,
});

/** A queued delivery of a lane (its event id), oldest first. */
export const LaneEntry = /* @__PURE__ */ defineEntity({
  name: 'webhook_lane_entry',
  key: (lanePartition: string, eventId: string) => ({ pk: lanePartition, sk: sortKeys.laneEntry(eventId) }),
  get schema() {
    return zm.object({ eventId: zm.string() });
  },
});
