import * as zm from '../zod-mini';

/**
 * The attributes of a transcode's output and of a reuse entry, shared by the reuse entity
 * (`transcode-reuse.ts`) and the job lifecycle's configuration (`transcode-jobs.ts`).
 */

/** A job's output, recorded as one of the company's stored objects (`TranscodeOutput`). */
export const transcodeOutputSchema = zm.object({
  bucket: zm.string(),
  fullPath: zm.string(),
  size: zm.number(),
  contentType: zm.string(),
});

/** The stored output of an earlier conversion of the same content. */
export const transcodeReuseSchema = zm.object({
  output: transcodeOutputSchema,
  sourceJobId: zm.string(),
  durationSeconds: zm.number(),
  createdAt: zm.string(),
});

export type ReuseEntry = zm.output<typeof transcodeReuseSchema>;
