/**
 * Shape of the single table. The CDK data stack and the local stack both build the table from this, so the
 * two cannot drift.
 */
export const TABLE_SHAPE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  gsi1: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
} as const;
