import { createHash, randomUUID } from 'node:crypto';
import { sendToQueue } from '../../aws/queues';
import {
  freeLane,
  type LaneRef,
  lanePartition,
  nextInLane,
  type UnfinishedLane,
} from '../../data/webhook-deliveries';

/**
 * The messages that drive webhook lanes through the `webhook-delivery` queue. A message names a lane and the
 * owner token that may take it: the dispatcher's, for the event it just queued (a token derived from lane
 * and event), or the one the lane's owner handed its next turn to (`lane-run.ts`), due at `dueAt` when it
 * waits out a retry. Kept apart from the delivery steps, which the delivery worker runs.
 */
export interface LaneMessage extends LaneRef {
  /** Who may take the lane with this message: the lane's owner token when the message is its next turn. */
  owner: string;
  /** When the lane's next attempt is due (a retry's backoff); absent: at once. */
  dueAt?: string;
}

/** The dispatcher's token for the event it queued: the lane (hashed) and the event. */
export const laneStartToken = (lane: LaneRef, eventId: string) =>
  `${createHash('sha256').update(lanePartition(lane)).digest('hex').slice(0, 24)}-${eventId}`;

/** A fresh owner token: the lane's next turn. */
export const newLaneToken = () => `t-${randomUUID()}`;

/** Sends a lane's message, to arrive after `delaySeconds` (at most a queue hop; see `lane-run.ts`). */
export const sendLaneMessage = (message: LaneMessage, delaySeconds = 0): Promise<void> =>
  sendToQueue('webhook-delivery', message, delaySeconds);

/**
 * Wakes the lane for the event just queued (`tag` names a later wake-up for the same event, such as a
 * resumption): the message takes the lane when nobody holds it; when an owner does, that owner sends this
 * delivery after the ones before it, and the message ends there.
 */
export const startLane = (lane: LaneRef, eventId: string, tag?: string): Promise<void> =>
  sendLaneMessage({
    companyId: lane.companyId,
    endpointId: lane.endpointId,
    resourceId: lane.resourceId,
    owner: `${laneStartToken(lane, eventId)}${tag ? `-${tag}` : ''}`,
  });

/**
 * Resumes a lane whose owner is gone (its message did not survive a restart of the local stack): the lane
 * is taken from the gone owner and woken, and sends its deliveries (the one taken on the idle-lane fast
 * path first), oldest first; each ends delivered or
 * failed as always (a disabled or deleted endpoint fails them with that reason). An empty lane is released.
 * Returns false when the lane had moved meanwhile (a live owner holds it).
 */
export const resumeLane = async (lane: UnfinishedLane, now: Date): Promise<boolean> => {
  if (!(await freeLane(lane))) return false;
  // A delivery taken on the fast path goes first; its message names it like the dispatcher's did.
  const oldest = lane.fast ?? (lane.pending > 0 ? await nextInLane(lane) : undefined);
  if (oldest) await startLane(lane, oldest, `r${now.getTime().toString(36)}`);
  return true;
};

/** A message as the queue hands it over; undefined when it is not a lane message (never retried). */
export const parseLaneMessage = (body: string): LaneMessage | undefined => {
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    const { companyId, endpointId, resourceId, owner, dueAt } = value;
    if ([companyId, endpointId, resourceId, owner].some((v) => typeof v !== 'string' || v === ''))
      return undefined;
    if (dueAt !== undefined && (typeof dueAt !== 'string' || Number.isNaN(Date.parse(dueAt))))
      return undefined;
    return {
      companyId: String(companyId),
      endpointId: String(endpointId),
      resourceId: String(resourceId),
      owner: String(owner),
      ...(typeof dueAt === 'string' ? { dueAt } : {}),
    };
  } catch {
    return undefined;
  }
};
