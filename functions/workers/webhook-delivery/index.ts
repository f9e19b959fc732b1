import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { runLane } from '../../shared/domain/events/lane-run';
import { parseLaneMessage } from '../../shared/domain/events/lanes';
import { logger } from '../../shared/observability/logger';
import { createHandler } from '../../shared/pipeline/handler';

/**
 * The `webhook-delivery` queue's worker: each message drives one lane (`domain/events/lane-run.ts`), the
 * messages of a batch at once, through Powertools Batch with a partial batch response (the event source
 * sets `reportBatchItemFailures`): a message whose handling failed comes back after the visibility timeout,
 * the others are done. A message that is not a lane message is logged and dropped: no retry could read it.
 */
const handleRecord = async (record: SQSRecord): Promise<void> => {
  const message = parseLaneMessage(record.body);
  if (!message) {
    logger.error('queue message dropped: it is not a lane message', { messageId: record.messageId });
    return;
  }
  const outcome = await runLane(message);
  logger.debug('lane message handled', { messageId: record.messageId, outcome });
};

export const handler = createHandler(
  (event: SQSEvent, context) =>
    processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), {
      context,
      throwOnFullBatchFailure: false,
      processInParallel: true,
    }),
  (event) => ({ records: event.Records.length }),
);
