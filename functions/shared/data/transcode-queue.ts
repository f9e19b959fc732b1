import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { decodeItem } from './entity';
import { sortKeys } from './keys';
import { jobQueue } from './schemas';
import { transcodePartition } from './transcode-partition';

/**
 * The company's transcode queue: the item `QUEUE` holds `unfinished`, the number of the company's jobs in
 * `pending|probing|transcoding|finalizing`. It changes only inside the same transaction as a job's move into
 * or out of those states (the job module takes these items), so it cannot drift: enqueue and retry take a
 * slot (conditional on the plan's cap), every move to `done|failed|canceled` releases one. The transaction
 * items that take and release a slot are the shared job lifecycle's (`job-lifecycle.ts`).
 */
export const transcodeQueueKey = (companyId: string) => ({
  pk: transcodePartition(companyId),
  sk: sortKeys.jobQueue,
});

export class TranscodeQueueFullError extends Error {
  constructor() {
    super('The company has as many unfinished transcode jobs as its plan allows');
    this.name = 'TranscodeQueueFullError';
  }
}

/** Number of unfinished jobs the queue counter holds (0 when it was never written). */
export const readTranscodeQueue = async (companyId: string): Promise<number> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: transcodeQueueKey(companyId), ConsistentRead: true }),
  );
  return Item ? (decodeItem('transcode_queue', jobQueue, Item).unfinished ?? 0) : 0;
};
