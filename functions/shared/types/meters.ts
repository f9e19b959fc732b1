/** Every meter of the platform; the usage snapshot reports each, zero when nothing was counted. */
export const METERS = [
  'api_requests',
  'transcode_seconds',
  'transcription_seconds',
  'speech_characters',
  'workflow_runs',
] as const;
export type MeterName = (typeof METERS)[number];

/** Compute time is metered per category, in milliseconds (`compute_ms#<category>`). */
export const COMPUTE_CATEGORIES = ['api', 'workers', 'media', 'workflows'] as const;
export type ComputeCategory = (typeof COMPUTE_CATEGORIES)[number];

/** Compute time of one piece of work, in milliseconds by category (billed with the work). */
export type ComputeMs = Partial<Record<ComputeCategory, number>>;
