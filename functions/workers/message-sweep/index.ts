import {
  type ReleasedMessages,
  releaseDueScheduledMessages,
  releaseScheduledMessage,
} from '../../shared/domain/messages/scheduled';
import { type ResumedMessages, resumeUndeliveredMessages } from '../../shared/domain/messages/undelivered';
import { createHandler } from '../../shared/pipeline/handler';

/**
 * The message sweep: an EventBridge rule invokes it every few minutes; it starts the delivery of every
 * message still `queued` that has not changed for longer than a delivery can run
 * (`domain/messages/undelivered.ts`), such as one whose function died between its write and the start of its
 * delivery, and releases every message still `scheduled` whose time has passed (its schedule was lost,
 * `domain/messages/scheduled.ts`). The local stack does the same at start-up.
 *
 * It is also the target of the one-time schedule of each scheduled message (`{companyId, messageId}`): that
 * message is released then (`scheduled → queued`, and its delivery starts).
 */
type SweepEvent = { companyId?: unknown; messageId?: unknown } | undefined;

export const handler = createHandler(
  async (
    event: SweepEvent,
  ): Promise<{ released: boolean } | (ResumedMessages & { scheduled: ReleasedMessages })> => {
    const now = new Date();
    if (typeof event?.companyId === 'string' && typeof event.messageId === 'string')
      return releaseScheduledMessage(event.companyId, event.messageId, now);
    const scheduled = await releaseDueScheduledMessages(now);
    return { ...(await resumeUndeliveredMessages(now)), scheduled };
  },
);
