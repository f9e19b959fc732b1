import { putObject } from '../../aws/s3';
import { headObject } from '../../aws/s3-objects';
import type { JobRef } from '../../data/jobs/record';
import { recordStoredObject } from '../../data/stored-objects';
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

/** Writes one output file of the attempt and records it as a stored object. */
export const writeJobFile = async (
  file: JobFile & { companyId: string; body: Uint8Array | string; contentType: string },
  now: Date,
): Promise<JobFile> => {
  const { bucket, fullPath, body, contentType } = file;
  const { etag } = await putObject(bucket, fullPath, body, contentType);
  await recordStoredObject(
    file.companyId,
    { bucket, fullPath, size: Buffer.byteLength(body), contentType, etag, createdAt: now.toISOString() },
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
): Promise<(JobFile & { size: number; etag: string }) | undefined> => {
  const head = await read(file.bucket, file.fullPath);
  if (!head) return undefined;
  const { bucket, fullPath, contentType } = file;
  await recordStoredObject(
    file.companyId,
    { bucket, fullPath, size: head.size, contentType, etag: head.etag, createdAt: now.toISOString() },
    now,
  );
  return { bucket, fullPath, size: head.size, etag: head.etag };
};
