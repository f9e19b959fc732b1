/**
 * Shape of the single table. The CDK data stack and the local stack both build the table from this, so the
 * two cannot drift.
 */
export const TABLE_SHAPE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  gsi1: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /** The second and third sort index of Dynadata types (`docs/decisions/0031-dynadata-sort-indexes.md`). */
  gsi2: { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  gsi3: { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
} as const;

/** Every global secondary index of the table, in order. */
export const TABLE_INDEXES = [TABLE_SHAPE.gsi1, TABLE_SHAPE.gsi2, TABLE_SHAPE.gsi3] as const;
