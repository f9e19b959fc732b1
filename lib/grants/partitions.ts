import {
  COMPANY_ID_PATTERN,
  INDEX_PARTITION_PATTERNS,
  TABLE_PARTITION_PATTERNS,
} from '../../functions/shared/data/keys';

/**
 * The partitions of the single table, as IAM `StringLike` patterns of `dynamodb:LeadingKeys` (the partition
 * key the request names: `pk` on the table, `gsi1pk` on `gsi1`). They are derived from the key catalogue of
 * the runtime code (`functions/shared/data/keys.ts`, a pure module), so a new partition family is granted by
 * name here the moment the catalogue declares it, and a grant can never name a key the code does not build.
 * `test/infra/partitions.test.ts` checks each pattern against the keys the data modules build.
 */
export { COMPANY_ID_PATTERN };

/** Partition keys (`pk`) of the table. */
export const TABLE_PARTITIONS = TABLE_PARTITION_PATTERNS;

/** Partition keys (`gsi1pk`) of `gsi1`. */
export const INDEX_PARTITIONS = INDEX_PARTITION_PATTERNS;

export type TablePartition = keyof typeof TABLE_PARTITIONS;
export type IndexPartition = keyof typeof INDEX_PARTITIONS;

/** An IAM `StringLike` pattern as a regular expression (`*` any run of characters, `?` exactly one). */
export const stringLikeRegExp = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  );
