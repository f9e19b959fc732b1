import { lazy } from '../../lazy';
import * as zm from '../../zod-mini';
import { decodeItem } from '../entity';
import { indexPartitions, unfinishedSortKey } from '../keys';
import { listSparsePartition } from '../sparse-index';

/**
 * The unfinished jobs that read a stored object: the job types whose input is a company's file (transcodes and
 * transcriptions: `source`) list their unfinished jobs in a sparse `work` partition each, sorted by company
 * then job, so the company's unfinished jobs are one `begins_with` Query per type (and a batch read of those
 * jobs), as few as its queues hold.
 * Long-form speech jobs read text they stored themselves, never a company's file. See
 * `docs/decisions/0026-files-in-use.md`.
 */
const SOURCE_READING_PARTITIONS = [
  indexPartitions.unfinishedTranscodes(),
  indexPartitions.unfinishedTranscriptions(),
] as const;

const readerSchema = /* @__PURE__ */ lazy(() =>
  zm.object({ jobId: zm.string(), source: zm.optional(zm.object({ fullPath: zm.optional(zm.string()) })) }),
);

/** The ids of the company's unfinished jobs whose source is `fullPath` (none: the file may go). */
export const unfinishedJobsReading = async (companyId: string, fullPath: string): Promise<string[]> => {
  const prefix = unfinishedSortKey(companyId, '');
  const jobs = await Promise.all(
    SOURCE_READING_PARTITIONS.map((partition) => listSparsePartition(partition, { prefix })),
  );
  return jobs
    .flat()
    .map((item) => decodeItem('job', readerSchema(), item))
    .filter((job) => job.source?.fullPath === fullPath)
    .map((job) => job.jobId);
};
