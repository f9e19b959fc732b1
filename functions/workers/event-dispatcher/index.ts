import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { dispatchChanges, type StreamChange } from '../../shared/domain/events/dispatch';
import { logger, withObservability } from '../../shared/logger';
import { EVENT_ENTITY } from '../../shared/types/events';

/**
 * The records the dispatcher acts on, by their raw attributes: a new event, or a change of a usage month
 * (`sk` `M#…`). The same rule as the event source's filter on AWS (`lib/constructs/webhook-events.ts`); the
 * local stream poller hands every record over, so the handler applies it too and never decodes the
 * images of other items.
 */
export const isDispatchable = (record: DynamoDBRecord): boolean => {
  const change = record.dynamodb;
  if (record.eventName === 'INSERT') return change?.NewImage?.entity?.S === EVENT_ENTITY;
  if (record.eventName === 'MODIFY') return change?.Keys?.sk?.S?.startsWith('M#') === true;
  return false;
};

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
 * The table's stream → the event dispatcher (`domain/events/dispatch.ts`), a batch at a time. A batch that
 * fails is reported from its first record (partial batch response), so the whole batch is handled again:
 * every step is idempotent (no delivery is created twice, an execution is started once by name).
 */
export const handler = withObservability(
  async (event: DynamoDBStreamEvent): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> => {
    try {
      await dispatchChanges(event.Records.filter(isDispatchable).map(toChange));
      return { batchItemFailures: [] };
    } catch (error) {
      logger.error('stream batch not dispatched', { error: error as Error });
      return { batchItemFailures: [{ itemIdentifier: event.Records[0]?.dynamodb?.SequenceNumber ?? '' }] };
    }
  },
  (event) => ({ records: event.Records.length }),
);
