import { partitions } from './keys';

/**
 * The company partition `CO#<companyId>#TRANSCODE` of the transcode entities, one module each:
 * - `JOB#<jobId>`: the job (`transcode-jobs.ts`).
 * - `QUEUE`: the company's queue slots (`transcode-queue.ts`).
 * - `REUSE#<preset>#<size>#<etag>`: the stored output of an earlier conversion (`transcode-reuse.ts`).
 */
export const transcodePartition = partitions.transcodes;
