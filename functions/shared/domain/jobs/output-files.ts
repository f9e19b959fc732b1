import { deleteObject, putObject } from '../../aws/s3';
import { headObject } from '../../aws/s3-objects';
import type { JobRef } from '../../data/jobs/record';
import { recordStoredObject } from '../../data/stored-objects';
import { logger } from '../../logger';
import { companyObjectPrefix, type ObjectPrefix } from '../../types/object-prefixes';

/**
 * A job's output files: written under the attempt's folder `companies/<companyId>/<prefix><jobId>/a<attempt>/`
 * and recorded as the company's stored objects (downloadable with `GET /v1/storage/url`, referenceable as
 * sources, counted in storage bytes), so every job type's results behave like uploads. Writing the same
 * file again (a repeated step) overwrites it with the same content.
 */
export interface JobFile {
  bucket: string;
  fullPath: string;
}

export const jobFolder = (prefix: ObjectPrefix, job: JobRef): string =>
  `${companyObjectPrefix(job.companyId, prefix)}${job.jobId}/a${job.attempt}/`;

type StoredFile = JobFile & { size: number; etag: string };

/** Records a file of the company's folder, as stored now, as one of its stored objects. */
export const recordJobFile = async (
  file: StoredFile & { companyId: string; contentType: string },
  now: Date,
): Promise<StoredFile> => {
  const { bucket, fullPath, size, etag, contentType } = file;
  await recordStoredObject(
    file.companyId,
    { bucket, fullPath, size, contentType, etag, createdAt: now.toISOString() },
    now,
  );
  return { bucket, fullPath, size, etag };
};

/** Writes one output file of the attempt and records it as a stored object. */
export const writeJobFile = async (
  file: JobFile & { companyId: string; body: Uint8Array | string; contentType: string },
  now: Date,
): Promise<JobFile> => {
  const { etag } = await putObject(file.bucket, file.fullPath, file.body, file.contentType);
  const { bucket, fullPath } = await recordJobFile(
    { ...file, size: Buffer.byteLength(file.body), etag },
    now,
  );
  return { bucket, fullPath };
};

/**
 * Records a file an engine wrote itself (MediaConvert, Polly) as a stored object; `undefined` when the
 * engine wrote none.
 */
export const recordEngineFile = async (
  file: JobFile & { companyId: string; contentType: string },
  now: Date,
  read: typeof headObject = headObject,
): Promise<StoredFile | undefined> => {
  const head = await read(file.bucket, file.fullPath);
  return head && recordJobFile({ ...file, size: head.size, etag: head.etag }, now);
};

/**
 * Deletes an engine's intermediate file (its raw output) once the job is `done`: nothing reads it again (a
 * repeated finalize finds the job done and ends without reading). A failure is logged, not raised.
 */
export const deleteIntermediateFile = (bucket: string, key: string, jobId: string): Promise<void> =>
  deleteObject(bucket, key).catch((error: unknown) =>
    logger.warn('intermediate file not deleted', { jobId, key, error: error as Error }),
  );
