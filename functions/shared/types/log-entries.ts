/**
 * Shards of one company's `log_entries` of one UTC day: each its own partition, chosen from the request id
 * (`data/log-entries.ts`, `docs/decisions/0038-sharded-audit-partition.md`). 4 carry 10x the target of 400
 * requests a second, each shard at 10 % of a partition's rate there.
 */
export const LOG_SHARDS = 4;
