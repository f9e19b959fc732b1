import { FAILED } from '../../data/jobs/moves';
import type { JobRecordBase } from '../../data/jobs/record';

/**
 * The public view's envelope, the same for every job type: the id, the status, progress, the error (only
 * when `failed`), whether an earlier result was reused, and the times. Internals (execution, company,
 * attempt start) are never shown. A type's view spreads it and adds its own fields (input, result).
 */
export const publicJobFields = <S extends string>(job: JobRecordBase<S>) => ({
  id: job.jobId,
  status: job.status,
  progress: job.progress ?? null,
  error: job.status === FAILED && job.error ? job.error : null,
  reused: job.reused,
  createdAt: job.createdAt,
  updatedAt: job.updatedAt,
  finishedAt: job.finishedAt ?? null,
});

/** A stored file as the tenant sees it: its reference only. */
export const publicFile = (file: { bucket: string; fullPath: string }) => ({
  bucket: file.bucket,
  fullPath: file.fullPath,
});
