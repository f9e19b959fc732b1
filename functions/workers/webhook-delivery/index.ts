import type { SQSBatchItemFailure, SQSEvent, SQSRecord } from 'aws-lambda';
import { hideMessages } from '../../shared/aws/queues';
import { attemptDelivery } from '../../shared/domain/events/delivery';
import { parseDeliveryMessage } from '../../shared/domain/events/delivery-queue';
import { logger } from '../../shared/observability/logger';
import { createHandler } from '../../shared/pipeline/handler';

/**
 * The `webhook-delivery` FIFO queue's worker: each message is one delivery (`domain/events/delivery-queue.ts`),
 * tried once (`domain/events/delivery.ts`). The messages of a batch are handled group by group (a group is
 * an endpoint and a resource), groups at once, each group's messages in order, with a partial batch
 * response (the event source sets `reportBatchItemFailures`), as Powertools' `SqsFifoPartialProcessor` with
 * `skipGroupOnError` does, but with the groups in parallel:
 *
 * - a delivery ended (delivered, failed, or found ended: a repeated message) is done, and its message deleted;
 * - a delivery to retry (or a message back before its retry is due) stays at its group's head: its
 *   visibility is set to the wait (at most 12 hours; the retry rule's waits are at most 1 hour) and it is
 *   reported failed, with the group's later messages of the batch, hidden as long, so the resource's later
 *   events wait behind it and come back after it, in order;
 * - a message whose handling threw is reported failed with the rest of its group, and comes back after the
 *   queue's visibility timeout (after `maxReceiveCount` receives, to the dead-letter queue).
 *
 * A message that is not a delivery message is logged and dropped: no retry could read it.
 */
const groupOf = (record: SQSRecord) => record.attributes.MessageGroupId ?? record.messageId;

/** Handles one group's messages in order; answers the ones that failed (from the first failure on). */
const handleGroup = async (records: readonly SQSRecord[]): Promise<SQSRecord[]> => {
  for (const [index, record] of records.entries()) {
    const message = parseDeliveryMessage(record.body);
    if (!message) {
      logger.error('queue message dropped: it is not a delivery message', { messageId: record.messageId });
      continue;
    }
    try {
      const result = await attemptDelivery(message);
      logger.debug('delivery message handled', { messageId: record.messageId, outcome: result.outcome });
      if (result.outcome === 'retry' || result.outcome === 'wait') {
        const held = records.slice(index);
        await hideMessages(
          'webhook-delivery',
          held.map((r) => r.receiptHandle),
          result.retryInSeconds,
        );
        return held;
      }
    } catch (error) {
      logger.error('delivery message failed: handled again', {
        messageId: record.messageId,
        error: error as Error,
      });
      return records.slice(index);
    }
  }
  return [];
};

export const handler = createHandler(
  async (event: SQSEvent): Promise<{ batchItemFailures: SQSBatchItemFailure[] }> => {
    const groups = new Map<string, SQSRecord[]>();
    for (const record of event.Records) {
      const group = groups.get(groupOf(record));
      if (group) group.push(record);
      else groups.set(groupOf(record), [record]);
    }
    const failed = (await Promise.all([...groups.values()].map(handleGroup))).flat();
    return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
  },
  (event) => ({ records: event.Records.length }),
);
