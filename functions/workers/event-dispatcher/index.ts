import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { dispatchChanges, type StreamChange } from '../../shared/domain/events/dispatch';
import { logger, withObservability } from '../../shared/logger';

/** A stream record as the dispatcher reads it (the images unmarshalled). */
export const toChange = (record: DynamoDBRecord): StreamChange => {
  const image = (i: unknown) => (i ? unmarshall(i as Record<string, AttributeValue>) : undefined);
  const newImage = image(record.dynamodb?.NewImage);
  const oldImage = image(record.dynamodb?.OldImage);
  return {
    eventName: (record.eventName ?? 'MODIFY') as StreamChange['eventName'],
    ...(newImage ? { newImage } : {}),
    ...(oldImage ? { oldImage } : {}),
  };
};

/**
 * The table's stream → the event dispatcher (`domain/events/dispatch.ts`). Records are handled in order; a
 * failing record is reported (partial batch response), so the batch is retried from it: every step is
 * idempotent, and the records before it are not handled again.
 */
export const handler = withObservability(
  async (event: DynamoDBStreamEvent): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> => {
    for (const record of event.Records) {
      try {
        await dispatchChanges([toChange(record)]);
      } catch (error) {
        logger.error('stream record not dispatched', { error: error as Error });
        return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
      }
    }
    return { batchItemFailures: [] };
  },
  (event) => ({ records: event.Records.length }),
);
