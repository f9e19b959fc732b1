import { indexPartitions, unfinishedSortKey } from './keys';
import { listSparsePartition, sparseIndexKey, sparseSortKey } from './sparse-index';

/**
 * Messages still to be delivered: a message of the built-in `messages` type (which indexes no field) is in the
 * sparse `work` partition `MESSAGE#UNDELIVERED` while its status is `queued` (`dynadata-items.ts` writes the
 * index attributes with the item); the write of its final status (`sent`, `failed`) takes it out, so the
 * partition holds only what still has to be delivered: read by start-up recovery of the local stack and by
 * the sweep of deliveries that never started on AWS (`domain/messages/undelivered.ts`).
 */
export const UNDELIVERED_MESSAGES_PARTITION = indexPartitions.undeliveredMessages();

export const undeliveredMessageIndexKey = (companyId: string, messageId: string) =>
  sparseIndexKey(UNDELIVERED_MESSAGES_PARTITION, unfinishedSortKey(companyId, messageId));

export interface UndeliveredMessage {
  companyId: string;
  messageId: string;
  /** When the message last changed (stored, or a delivery attempt counted). */
  updatedAt: string;
}

/** Every message still `queued`, of every company (the sparse partition: no history is read). */
export const listUndeliveredMessages = async (): Promise<UndeliveredMessage[]> =>
  (await listSparsePartition(UNDELIVERED_MESSAGES_PARTITION)).map((raw) => {
    const [companyId = '', messageId = ''] = sparseSortKey(raw).split('#');
    if (typeof raw.updatedAt !== 'string') throw new Error(`message ${messageId} has no updatedAt`);
    return { companyId, messageId, updatedAt: raw.updatedAt };
  });
