import {
  type LaneRef,
  nextInLane,
  passLane,
  releaseLane,
  renewLane,
  takeLane,
} from '../../data/webhook-deliveries';
import { env } from '../../env';
import { MAX_QUEUE_DELAY_SECONDS } from '../../types/queues';
import { leaseFrom } from '../jobs/worker-shell';
import { attemptStep } from './delivery';
import { type LaneMessage, newLaneToken, sendLaneMessage } from './lanes';

/**
 * Drives one lane (endpoint × resource) from a message of the `webhook-delivery` queue, so that at most one
 * delivery of the lane is in flight and its events go out oldest first:
 *
 * - A message due later than now (a retry's backoff longer than a queue hop) is sent on, to arrive after
 *   the rest of the wait or the next hop, and hands the lane's turn to that message.
 * - A due message takes the lane under a fresh owner token (`takeLane`: when the message is the lane's turn,
 *   nobody holds the lane, or the holder's lease ended) and sends the delivery the lane carries on the
 *   idle-lane fast path (`fast`, no entry), if any, then the lane's oldest pending delivery, then the next, until the lane is empty (released) or a delivery must be retried: then a message due at the
 *   retry is sent, and the lane is handed to it with a lease until the retry plus the lease. A lane with
 *   more to send than one message's work budget is handed to a message due at once.
 *
 * Each message is one turn of the lane: the owner token it carries is replaced when the lane is taken or
 * handed on, so a second copy of a message (SQS delivers at least once) finds its turn passed and ends
 * without sending. A message whose handling failed comes back after the queue's visibility timeout, which
 * is longer than the lease: it takes the lane again, as the lease it set has ended.
 */
export type LaneOutcome = 'released' | 'waiting' | 'continued' | 'not_owner' | 'lost';

/** The message handed the lane's next turn is sent first, so a lane is never handed to a message not sent. */
const handOn = async (lane: LaneRef, from: string, dueAt: Date, now: Date): Promise<boolean> => {
  const to = newLaneToken();
  const waitSeconds = Math.max(0, (dueAt.getTime() - now.getTime()) / 1000);
  await sendLaneMessage(
    { ...lane, owner: to, ...(waitSeconds > 0 ? { dueAt: dueAt.toISOString() } : {}) },
    Math.min(MAX_QUEUE_DELAY_SECONDS, waitSeconds),
  );
  return passLane(lane, { from, to }, leaseFrom(dueAt, env().webhookDelivery.leaseSeconds));
};

/**
 * The work one message does before it hands the lane on: at most a third of the lease and 30 s, so one more
 * attempt (10 s at most) ends well within the lease and the worker's 60 s timeout.
 */
const MAX_WORK_MS = 30_000;

/** A message arriving less than this before its due time is handled as due (SQS delays are whole seconds). */
const DUE_SLACK_MS = 1000;

export const runLane = async (message: LaneMessage, clock = () => new Date()): Promise<LaneOutcome> => {
  const lane: LaneRef = {
    companyId: message.companyId,
    endpointId: message.endpointId,
    resourceId: message.resourceId,
  };
  const { leaseSeconds } = env().webhookDelivery;
  const arrived = clock();
  if (message.dueAt && Date.parse(message.dueAt) - arrived.getTime() > DUE_SLACK_MS) {
    return (await handOn(lane, message.owner, new Date(message.dueAt), arrived)) ? 'waiting' : 'not_owner';
  }
  const owner = newLaneToken();
  const taken = await takeLane(
    lane,
    { from: message.owner, to: owner },
    leaseFrom(arrived, leaseSeconds),
    arrived,
  );
  if (!taken) return 'not_owner';
  // The delivery taken on the idle-lane fast path goes first: it came when the lane had nothing else.
  let fast = taken.fast;
  const budgetMs = Math.min(MAX_WORK_MS, (leaseSeconds * 1000) / 3);
  for (;;) {
    const eventId = fast ?? (await nextInLane(lane));
    if (!eventId) {
      if (await releaseLane(lane, owner)) return 'released';
      // A delivery was queued meanwhile (go on), unless the lane is no longer this owner's.
      if (!(await renewLane(lane, owner, leaseFrom(clock(), leaseSeconds)))) return 'lost';
    } else {
      const now = clock();
      const result = await attemptStep({ ...lane, eventId, ...(fast ? { fast: true } : {}) }, now);
      if (result.outcome === 'retry') {
        const dueAt = leaseFrom(now, result.retryInSeconds);
        return (await handOn(lane, owner, dueAt, clock())) ? 'waiting' : 'lost';
      }
      if (fast) {
        // Ended: the lane is released, unless entries came meanwhile (the `fast` mark goes, they follow).
        fast = undefined;
        if (await releaseLane(lane, owner)) return 'released';
        if (!(await renewLane(lane, owner, leaseFrom(clock(), leaseSeconds)))) return 'lost';
      }
    }
    const later = clock();
    if (later.getTime() - arrived.getTime() > budgetMs)
      return (await handOn(lane, owner, later, later)) ? 'continued' : 'lost';
  }
};
