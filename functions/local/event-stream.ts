import { existsSync, readFileSync } from 'node:fs';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { RunningService } from './dynamodb-local';
import { writeFileAtomically } from './state-file';

/**
 * The table's stream in the local stack: DynamoDB Local's stream, polled with the DynamoDB Streams client,
 * feeds the very dispatcher handler the Lambda event source feeds on AWS (`workers/event-dispatcher`).
 *
 * Each shard is read in order; the last sequence number handled per shard is kept in `checkpointFile`, so a
 * restarted stack goes on where the previous one stopped (a record handled again is harmless: the dispatcher
 * is idempotent). A batch the handler reports failing is read again from the failed record.
 */
type Handler = (event: DynamoDBStreamEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

interface Checkpoint {
  streamArn: string;
  /** Last sequence number handled per shard; `closed` once a closed shard has been read to its end. */
  shards: Record<string, string>;
}

const IDLE_MS = 100;

export const startEventStream = async (options: {
  endpoint: string;
  region: string;
  streamArn: string;
  checkpointFile: string;
  handler: () => Promise<Handler>;
}): Promise<RunningService> => {
  const client = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: options.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const saved: Checkpoint | undefined = existsSync(options.checkpointFile)
    ? (JSON.parse(readFileSync(options.checkpointFile, 'utf8')) as Checkpoint)
    : undefined;
  const checkpoint: Checkpoint =
    saved?.streamArn === options.streamArn ? saved : { streamArn: options.streamArn, shards: {} };
  const save = () => writeFileAtomically(options.checkpointFile, JSON.stringify(checkpoint));
  const iterators = new Map<string, string>();
  let stopped = false;

  const iteratorOf = async (shardId: string): Promise<string | undefined> => {
    const known = iterators.get(shardId);
    if (known) return known;
    const after = checkpoint.shards[shardId];
    const from = async (position: { SequenceNumber?: string }) =>
      (
        await client.send(
          new GetShardIteratorCommand({
            StreamArn: options.streamArn,
            ShardId: shardId,
            ShardIteratorType: position.SequenceNumber ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
            ...position,
          }),
        )
      ).ShardIterator;
    if (!after) return from({});
    try {
      return await from({ SequenceNumber: after });
    } catch (error) {
      // The checkpoint is older than what the stream keeps (24 hours): read what it still has.
      if ((error as Error).name !== 'TrimmedDataAccessException') throw error;
      return from({});
    }
  };

  /** Every shard of the stream, page after page. */
  const listShards = async () => {
    const shards: string[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription } = await client.send(
        new DescribeStreamCommand({ StreamArn: options.streamArn, ExclusiveStartShardId: start }),
      );
      for (const shard of StreamDescription?.Shards ?? []) if (shard.ShardId) shards.push(shard.ShardId);
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return shards;
  };

  /** Reads one page of a shard and hands it to the dispatcher; returns how many records were handled. */
  const readShard = async (shardId: string): Promise<number> => {
    const iterator = await iteratorOf(shardId);
    if (!iterator) {
      checkpoint.shards[shardId] = 'closed';
      return 0;
    }
    const { Records = [], NextShardIterator } = await client.send(
      new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }),
    );
    if (Records.length === 0) {
      if (NextShardIterator) iterators.set(shardId, NextShardIterator);
      else {
        iterators.delete(shardId);
        checkpoint.shards[shardId] = 'closed';
        save();
      }
      return 0;
    }
    const handle = await options.handler();
    const { batchItemFailures } = await handle({ Records: Records as unknown as DynamoDBRecord[] });
    const failed = batchItemFailures[0]?.itemIdentifier;
    const handled = failed
      ? Records.slice(
          0,
          Records.findIndex((r: _Record) => r.dynamodb?.SequenceNumber === failed),
        )
      : Records;
    const last = handled.at(-1)?.dynamodb?.SequenceNumber;
    if (last) checkpoint.shards[shardId] = last;
    if (failed) iterators.delete(shardId);
    else if (NextShardIterator) iterators.set(shardId, NextShardIterator);
    else iterators.delete(shardId);
    save();
    return handled.length;
  };

  const poll = async () => {
    while (!stopped) {
      let handled = 0;
      try {
        for (const id of await listShards()) {
          if (checkpoint.shards[id] === 'closed') continue;
          handled += await readShard(id);
        }
      } catch (error) {
        if (!stopped) process.stderr.write(`event stream: ${String(error)}\n`);
        // An expired or broken iterator is taken again from the checkpoint.
        iterators.clear();
      }
      if (handled === 0) await new Promise((r) => setTimeout(r, IDLE_MS));
    }
  };
  const running = poll();

  return {
    endpoint: options.streamArn,
    stop: async () => {
      stopped = true;
      await running;
      client.destroy();
    },
  };
};
