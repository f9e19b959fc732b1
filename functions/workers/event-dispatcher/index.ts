import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { USAGE_MONTH_SORT_KEY_PREFIX } from '../../shared/data/keys';
import { dispatchChanges, type StreamChange } from '../../shared/domain/events/dispatch';
import { logger, withObservability } from '../../shared/logger';
import { EVENT_ENTITY } from '../../shared/types/events';

/**
 * The records the dispatcher acts on, by their raw attributes: a new event, or a change of a usage month
 * (its sort key starts with the usage month prefix). The same rule as the event source's filter on AWS (`lib/constructs/webhook-events.ts`); the
 * local stream poller hands every record over, so the handler applies it too and never decodes the
 * images of other items.
 */
export const isDispatchable = (record: DynamoDBRecord): boolean => {
  const change = record.dynamodb;
  if (record.eventName === 'INSERT') return change?.NewImage?.entity?.S === EVENT_ENTITY;
  if (record.eventName === 'MODIFY')
    return change?.Keys?.sk?.S?.startsWith(USAGE_MONTH_SORT_KEY_PREFIX) === true;
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

/** A record whose images cannot be read is skipped (logged): no retry could read it. */
const readChange = (record: DynamoDBRecord, position: number): StreamChange | undefined => {
  try {
    return { ...toChange(record), position };
  } catch (error) {
    logger.error('stream record skipped: it cannot be read', { position, error: error as Error });
    return undefined;
  }
};

/**
 * The table's stream → the event dispatcher (`domain/events/dispatch.ts`), a batch at a time, with a partial
 * batch response: the earliest record that failed is reported, so the stream is handled again from there
 * (the records before it are done; the ones after it are handled again, which every step allows: no delivery
 * is created twice, an execution is started once by name). A failure that is not a record's (the function
 * itself breaking) reports the first record.
 */
export const handler = withObservability(
  async (event: DynamoDBStreamEvent): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> => {
    const retryAt = (position: number) => [
      { itemIdentifier: event.Records[position]?.dynamodb?.SequenceNumber ?? '' },
    ];
    try {
      const changes = event.Records.flatMap((record, position) =>
        isDispatchable(record) ? (readChange(record, position) ?? []) : [],
      );
      const { retryFrom } = await dispatchChanges(changes);
      return { batchItemFailures: retryFrom === undefined ? [] : retryAt(retryFrom) };
    } catch (error) {
      logger.error('stream batch not dispatched', { error: error as Error });
      return { batchItemFailures: retryAt(0) };
    }
  },
  (event) => ({ records: event.Records.length }),
);
