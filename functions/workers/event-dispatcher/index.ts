import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { USAGE_MONTH_SORT_KEY_PREFIX } from '../../shared/data/keys';
import { createChangeDispatcher, type StreamChange } from '../../shared/domain/events/dispatch';
import { logger } from '../../shared/observability/logger';
import { createHandler } from '../../shared/pipeline/handler';
import { processStreamBatch } from '../../shared/pipeline/stream-batch';
import { DELETING_STATUS, ITEM_ENTITY, TYPE_ENTITY } from '../../shared/types/dynadata-types';
import { EVENT_ENTITY } from '../../shared/types/events';
import { SETTLED_JOB_ENTITIES } from '../../shared/types/job-entities';

/**
 * The records the dispatcher acts on, by their raw attributes: a new event, a write of a usage month's item,
 * shard or family item (its sort key starts with the usage month prefix; its first write too), a change of a
 * Dynadata type being deleted, a write of a Dynadata item marked `_streamed` (its new image; a delete's old
 * image): the dispatcher raises the change events of the types that raise them; or a write of a job item
 * marked `_streamed` (a final move: the dispatcher settles it). The same rule as the event source's filter on AWS (`lib/constructs/webhook-events.ts`); the
 * local stream poller hands every record over, so the handler applies it too and never decodes the
 * images of other items.
 */
export const isDispatchable = (record: DynamoDBRecord): boolean => {
  const change = record.dynamodb;
  const usageMonth = change?.Keys?.sk?.S?.startsWith(USAGE_MONTH_SORT_KEY_PREFIX) === true;
  const entity = change?.NewImage?.entity?.S;
  const streamedItem = (image: Record<string, { S?: string; BOOL?: boolean }> | undefined) =>
    image?.entity?.S === ITEM_ENTITY && image._streamed?.BOOL === true;
  // A job's final move carries `_streamed` with its settle mark (decision 0065).
  const settledJob =
    SETTLED_JOB_ENTITIES.includes(entity ?? '') && change?.NewImage?._streamed?.BOOL === true;
  if (record.eventName === 'INSERT')
    return entity === EVENT_ENTITY || streamedItem(change?.NewImage) || settledJob || usageMonth;
  if (record.eventName === 'MODIFY') {
    if (entity === TYPE_ENTITY) return change?.NewImage?.status?.S === DELETING_STATUS;
    return streamedItem(change?.NewImage) || settledJob || usageMonth;
  }
  return record.eventName === 'REMOVE' && streamedItem(change?.OldImage);
};

/**
 * An image's binary attributes as bytes: Lambda hands a stream record over as JSON, where a binary value
 * (`B`, a packed event's `data`: `data/packed-json.ts`) is base64 text; the local stream poller hands bytes.
 */
const withBytes = (value: AttributeValue): AttributeValue => {
  const { B, M, L } = value as { B?: unknown; M?: Record<string, AttributeValue>; L?: AttributeValue[] };
  if (typeof B === 'string') return { B: Buffer.from(B, 'base64') };
  if (M) return { M: imageWithBytes(M) };
  if (L) return { L: L.map(withBytes) };
  return value;
};
const imageWithBytes = (image: Record<string, AttributeValue>) =>
  Object.fromEntries(Object.entries(image).map(([name, value]) => [name, withBytes(value)]));

/** A stream record as the dispatcher reads it (the images unmarshalled). */
export const toChange = (record: DynamoDBRecord): StreamChange => {
  const image = (i: unknown) =>
    i ? unmarshall(imageWithBytes(i as Record<string, AttributeValue>)) : undefined;
  const newImage = image(record.dynamodb?.NewImage);
  const oldImage = image(record.dynamodb?.OldImage);
  // Seconds on Lambda (a number); the local poller's SDK hands a Date.
  const created = record.dynamodb?.ApproximateCreationDateTime as unknown;
  const recordTime =
    typeof created === 'number' ? created * 1000 : created instanceof Date ? created.getTime() : undefined;
  return {
    eventName: (record.eventName ?? 'MODIFY') as StreamChange['eventName'],
    ...(newImage ? { newImage } : {}),
    ...(oldImage ? { oldImage } : {}),
    ...(record.eventID ? { recordId: record.eventID } : {}),
    ...(recordTime === undefined || Number.isNaN(recordTime) ? {} : { recordTime }),
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
 * The table's stream → the event dispatcher (`domain/events/dispatch.ts`), a batch at a time, through
 * Powertools Batch with a partial batch response (`pipeline/stream-batch.ts`): the earliest record that
 * failed is reported, so the stream is handled again from there (the records before it are done; the ones
 * after it are handled again, which every step allows: no delivery is created twice, an execution is
 * started once by name). A good record is never held back for a bad one of another resource.
 */
export const handler = createHandler(
  (event: DynamoDBStreamEvent, context) => {
    const dispatch = createChangeDispatcher();
    return processStreamBatch(
      event,
      async (record, position) => {
        if (!isDispatchable(record)) return;
        const change = readChange(record, position);
        if (change) await dispatch(change);
      },
      context,
    );
  },
  (event) => ({ records: event.Records.length }),
);
