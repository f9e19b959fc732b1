import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { defineEntity, putItem, type TransactItem } from './entity';
import { sortKeys } from './keys';
import { transcodePartition } from './transcode-partition';
import { type ReuseEntry, transcodeReuseSchema } from './transcode-schemas';

/**
 * Reuse entries: the stored output of an earlier conversion of the same content (probed size and ETag) to
 * the same preset, item `REUSE#<preset>#<size>#<etag>` of the company's transcode partition. An entry is
 * written only in the transaction of a billed conversion's move to `done` (the job module takes the item
 * from here), so a canceled or failed conversion leaves none behind.
 */
export interface TranscodeContent {
  preset: string;
  /** The source as probed: its size in bytes and its ETag (quotes are dropped in the key). */
  size: number;
  etag: string;
}

export const transcodeReuseKey = (companyId: string, { preset, size, etag }: TranscodeContent) => ({
  pk: transcodePartition(companyId),
  sk: sortKeys.reuse(`${preset}#${size}#${etag.replace(/"/g, '')}`),
});

export const TranscodeReuse = defineEntity({
  name: 'transcode_reuse',
  key: transcodeReuseKey,
  schema: transcodeReuseSchema,
});

export type { ReuseEntry };

export const toReuseEntry = (item: Record<string, unknown>): ReuseEntry => TranscodeReuse.decode(item);

/** Transaction item writing the reuse entry of `content`. */
export const putTranscodeReuseItem = (
  companyId: string,
  content: TranscodeContent,
  entry: ReuseEntry,
): TransactItem => putItem(TranscodeReuse, transcodeReuseKey(companyId, content), entry);

export const getTranscodeReuse = async (
  companyId: string,
  content: TranscodeContent,
): Promise<ReuseEntry | undefined> => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: transcodeReuseKey(companyId, content) }),
  );
  return Item ? toReuseEntry(Item) : undefined;
};
