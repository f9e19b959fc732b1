import { lazy } from '../../lazy';
import * as zm from '../../zod-mini';
import { queryAll, tableName } from '../client';
import { decodeItem } from '../entity';
import { indexPartitions, unfinishedSortKey } from '../keys';
import { TABLE_SHAPE } from '../table';

/**
 * The unfinished jobs that read a stored object: the job types whose input is a company's file (transcodes and
 * transcriptions: `source`) list their unfinished jobs in a sparse `gsi1` partition each, sorted by company
 * then job, so the company's unfinished jobs are one `begins_with` Query per type, as few as its queues hold.
 * Long-form speech jobs read text they stored themselves, never a company's file. See
 * `docs/decisions/0026-files-in-use.md`.
 */
const SOURCE_READING_PARTITIONS = [
  indexPartitions.unfinishedTranscodes(),
  indexPartitions.unfinishedTranscriptions(),
] as const;

const readerSchema = /* @__PURE__ */ lazy(() => zm.object({ jobId: zm.string() }));

/** The ids of the company's unfinished jobs whose source is `fullPath` (none: the file may go). */
export const unfinishedJobsReading = async (companyId: string, fullPath: string): Promise<string[]> => {
  const pages = await Promise.all(
    SOURCE_READING_PARTITIONS.map((partition) =>
      queryAll({
        TableName: tableName(),
        IndexName: TABLE_SHAPE.gsi1.indexName,
        KeyConditionExpression: 'gsi1pk = :p AND begins_with(gsi1sk, :company)',
        FilterExpression: '#source.#fullPath = :path',
        ProjectionExpression: 'jobId',
        ExpressionAttributeNames: { '#source': 'source', '#fullPath': 'fullPath' },
        ExpressionAttributeValues: {
          ':p': partition,
          ':company': unfinishedSortKey(companyId, ''),
          ':path': fullPath,
        },
      }),
    ),
  );
  return pages.flat().map((item) => decodeItem('job', readerSchema(), item).jobId);
};
