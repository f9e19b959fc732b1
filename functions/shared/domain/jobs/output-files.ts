import { deleteObject, putObject } from '../../aws/s3';
import type { JobRef } from '../../data/jobs/record';
import type { StoredObject } from '../../data/stored-objects';
import { logger } from '../../observability/logger';
import { companyObjectPrefix, type ObjectPrefix } from '../../types/object-prefixes';

/**
 * A job's output files: written under the attempt's folder `companies/<companyId>/<prefix><jobId>/a<attempt>/`
 * and recorded as the company's stored objects (downloadable with `GET /v1/storage/url`, referenceable as
 * sources, counted in storage bytes) in the transaction of the job's move to `done` (`files` of `complete`),
 * so a job canceled or failed meanwhile records none, and every job type's results behave like uploads.
 * Writing the same file again (a repeated step) overwrites it with the same content.
 */
export interface JobFile {
  bucket: string;
  fullPath: string;
}

export const jobFolder = (prefix: ObjectPrefix, job: JobRef): string =>
  `${companyObjectPrefix(job.companyId, prefix)}${job.jobId}/a${job.attempt}/`;

/** A written output file as the move to `done` records it (`files` of `complete`): a stored object. */
export type JobOutputFile = StoredObject;

/** A file's reference, as a job's result names it. */
export const jobFileOf = ({ bucket, fullPath }: JobFile): JobFile => ({ bucket, fullPath });

/** Writes one output file of the attempt; the move to `done` records it (`files`). */
export const writeJobFile = async (
  file: JobFile & { body: Uint8Array | string; contentType: string },
  now: Date,
): Promise<JobOutputFile> => {
  const { etag } = await putObject(file.bucket, file.fullPath, file.body, file.contentType);
  const { bucket, fullPath, contentType } = file;
  return {
    bucket,
    fullPath,
    contentType,
    size: Buffer.byteLength(file.body),
    etag,
    createdAt: now.toISOString(),
  };
};

/**
 * Deletes a file no step reads again: an engine's intermediate file (its raw output) once the job is `done` (a
 * repeated finalize finds the job done and ends without reading), a job's input once it is final. A failure
 * is logged, not raised.
 */
export const deleteIntermediateFile = (bucket: string, key: string, jobId: string): Promise<void> =>
  deleteObject(bucket, key).catch((error: unknown) =>
    logger.warn('intermediate file not deleted', { jobId, key, error: error as Error }),
  );
