import { indexPartitions } from './keys';
import { listSparsePartition, sparseIndexKey, sparseSortKey } from './sparse-index';

/**
 * Messages to send later: a message of the built-in `messages` type is in the sparse `work` partition
 * `MESSAGE#SCHEDULED` while its status is `scheduled`, sorted by its send time (`<sendAt>#<companyId>#<messageId>`,
 * `sendAt` in UTC ISO 8601, so the text order is the time order). The write that moves it on (`queued` when it is
 * due, `canceled`) takes it out, so the partition holds only messages still waiting: the message sweep and the
 * local stack's start-up read the part whose time has passed, so a message whose schedule was lost is still sent
 * (`domain/messages/scheduled.ts`).
 */
export const SCHEDULED_MESSAGES_PARTITION = indexPartitions.scheduledMessages();

export const scheduledMessageIndexKey = (companyId: string, messageId: string, sendAt: string) =>
  sparseIndexKey(SCHEDULED_MESSAGES_PARTITION, `${sendAt}#${companyId}#${messageId}`);

export interface DueScheduledMessage {
  companyId: string;
  messageId: string;
  sendAt: string;
}

/** The messages still `scheduled` whose send time is before `before`, of every company, earliest first. */
export const listDueScheduledMessages = async (before: Date): Promise<DueScheduledMessage[]> =>
  (await listSparsePartition(SCHEDULED_MESSAGES_PARTITION, { before: before.toISOString() })).map((raw) => {
    const [sendAt = '', companyId = '', messageId = ''] = sparseSortKey(raw).split('#');
    return { companyId, messageId, sendAt };
  });
