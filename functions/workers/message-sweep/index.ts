import { type ResumedMessages, resumeUndeliveredMessages } from '../../shared/domain/messages/undelivered';
import { createHandler } from '../../shared/pipeline/handler';

/**
 * The message sweep: an EventBridge rule invokes it every few minutes; it starts the delivery of every
 * message still `queued` that has not changed for longer than a delivery can run
 * (`domain/messages/undelivered.ts`), such as one whose function died between its write and the start of its
 * delivery. The local stack does the same at start-up.
 */
export const handler = createHandler((): Promise<ResumedMessages> => resumeUndeliveredMessages(new Date()));
