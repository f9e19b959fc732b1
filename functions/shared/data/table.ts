/**
 * Shape of the single table. The CDK data stack and the local stack both build the table from this, so the
 * two cannot drift.
 */
export const TABLE_SHAPE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  /** Listings that need whole items: API keys, webhook delivery logs, stored files, Dynadata's first sort index. */
  gsi1: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
  /** The second and third sort index of Dynadata types (`docs/decisions/0031-dynadata-sort-indexes.md`). */
  gsi2: { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'ALL' },
  gsi3: { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'ALL' },
  /**
   * The sparse partitions of unfinished work (`sparse-index.ts`), keys only: an update of a running item that
   * changes no `work` attribute writes nothing to it (`docs/decisions/0040-keys-only-work-index.md`).
   */
  work: { indexName: 'work', partitionKey: 'workpk', sortKey: 'worksk', projection: 'KEYS_ONLY' },
} as const;

/**
 * Every global secondary index of the table, in order of creation: CloudFormation adds one per deploy, so a
 * new index goes last (`lib/data-stack.ts`, `docs/operate.md#deploy`).
 */
export const TABLE_INDEXES = [
  TABLE_SHAPE.gsi1,
  TABLE_SHAPE.gsi2,
  TABLE_SHAPE.gsi3,
  TABLE_SHAPE.work,
] as const;
