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

/**
 * Shard items of one month's `api_requests` count (`data/usage-shards.ts`,
 * `docs/decisions/0037-sharded-api-requests-meter.md`). A request writes one item (1 write unit), so a company
 * at 2x the highest plan's 200 requests a second puts 400 writes a second on the partition and 40 on each
 * shard: far below the 1,000 writes a second one item takes, with room for the shards to stay uneven (they are
 * chosen at random) and for DynamoDB to split the partition's items between partitions when it is hot. More
 * shards would cost each reader more keys and a refused request (at the allowance) more refused writes, for
 * no plan we sell.
 */
export const API_REQUEST_SHARDS = 10;
