import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/**
 * A batch of a DynamoDB stream through Powertools Batch (`processPartialResponse`): each record is handed to
 * `handleRecord` (all of them started at once, in the stream's order), a record whose handler throws is a
 * failure of that record only, and the answer is a partial batch response (the event source sets
 * `reportBatchItemFailures`). A batch whose every record failed is answered the same way, not thrown.
 *
 * The answer names the earliest failed record alone: Lambda resumes a stream from the lowest sequence
 * number reported, so the checkpoint is the same, and the local stack's stream poller reads it the same way.
 * Records after it are handed over again with it, which is why a record handler must be idempotent.
 */
export const processStreamBatch = async (
  event: DynamoDBStreamEvent,
  handleRecord: (record: DynamoDBRecord, position: number) => Promise<void>,
  context?: Context,
): Promise<DynamoDBBatchResponse> => {
  const positions = new Map(event.Records.map((record, position) => [record, position]));
  const { batchItemFailures } = await processPartialResponse(
    event,
    (record: DynamoDBRecord) => handleRecord(record, positions.get(record) ?? 0),
    new BatchProcessor(EventType.DynamoDBStreams),
    { ...(context ? { context } : {}), throwOnFullBatchFailure: false, processInParallel: true },
  );
  const failed = new Set(batchItemFailures.map(({ itemIdentifier }) => itemIdentifier));
  const earliest = event.Records.find((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
  const sequence = earliest?.dynamodb?.SequenceNumber;
  return { batchItemFailures: sequence === undefined ? [] : [{ itemIdentifier: sequence }] };
};
