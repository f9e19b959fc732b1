import { listUndeliveredMessages } from '../../data/undelivered-messages';
import { logger } from '../../observability/logger';
import { startMessageDelivery } from './send-message';

/**
 * Messages answered 202 whose delivery never started or was cut short: every one of them is in the sparse
 * partition of undelivered messages (`dynadata-items.ts`) until its status is final, so none is lost.
 *
 * - The local stack, at start-up: no execution survives a restart, so every message still `queued` gets a new
 *   delivery execution (`quietForMs` 0).
 * - On AWS, the message sweep (`functions/workers/message-sweep`, every few minutes): a function that died
 *   between the message's write and the start of its execution left it `queued` with no execution. A message
 *   is restarted only once it has not changed for `MESSAGE_DELIVERY_QUIET_MS`, longer than a delivery
 *   execution can live (Express: 5 minutes; each attempt counts itself on the message), so a delivery still
 *   running is never doubled.
 *
 * A delivery restarted after a crash that struck between the webhook's answer and the write of `sent` sends
 * the message again, with the same `webhook-id` (at least once, as every webhook of the platform).
 */
export const MESSAGE_DELIVERY_QUIET_MS = 6 * 60_000;

export interface ResumedMessages {
  resumed: number;
  /** Still within their quiet time: their delivery may be running. */
  waiting: number;
  /** Their delivery could not be started now; the next sweep tries again. */
  failed: number;
}

export const resumeUndeliveredMessages = async (
  now: Date,
  { quietForMs = MESSAGE_DELIVERY_QUIET_MS }: { quietForMs?: number } = {},
): Promise<ResumedMessages> => {
  const counts: ResumedMessages = { resumed: 0, waiting: 0, failed: 0 };
  for (const message of await listUndeliveredMessages()) {
    if (now.getTime() - Date.parse(message.updatedAt) < quietForMs) {
      counts.waiting += 1;
      continue;
    }
    try {
      await startMessageDelivery(message.companyId, message.messageId);
      counts.resumed += 1;
    } catch (error) {
      counts.failed += 1;
      logger.error('message delivery could not be restarted', { ...message, error });
    }
  }
  return counts;
};
