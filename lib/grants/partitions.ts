import { indexPartitions, partitions } from '../../functions/shared/data/keys';

/**
 * The partitions of the single table, as IAM `StringLike` patterns of `dynamodb:LeadingKeys` (the partition
 * key the request names: `pk` on the table, `gsi1pk` on `gsi1`). They are derived from the key catalogue of
 * the runtime code (`functions/shared/data/keys.ts`, a pure module), so a new partition family is granted by
 * name here the moment the catalogue declares it, and a grant can never name a key the code does not build.
 * `test/infra/partitions.test.ts` checks each pattern against the keys the data modules build.
 *
 * Company ids are `co_` and a 26-character ULID (`newCompanyId`), which `?` (exactly one character) pins, so
 * the profile partition's pattern matches the profile alone and not every partition that starts with it.
 */
export const COMPANY_ID_PATTERN = `co_${'?'.repeat(26)}`;

type Builder = (...parts: string[]) => string;

/** A marker no id contains: a family whose builder puts it right after the tenant prefix is a tenant's. */
const MARK = '\u0000';
const TENANT_MARKED = partitions.company(MARK);

/**
 * The IAM `StringLike` pattern of a partition family: its builder with the company-id pattern for a tenant
 * family and `*` for every other part; wildcards separated only by `#` collapse into one `*` (which matches
 * the same keys, since `*` spans `#`).
 */
const patternOf = (build: Builder): string => {
  const tenantFamily = build(MARK, '', '', '').startsWith(TENANT_MARKED);
  const parts = Array.from({ length: build.length }, (_, i) =>
    i === 0 && tenantFamily ? COMPANY_ID_PATTERN : '*',
  );
  return build(...parts).replace(/\*(#\*)+/g, '*');
};

const patternsOf = <T extends Record<string, Builder>>(builders: T): { [K in keyof T]: string } =>
  Object.fromEntries(Object.entries(builders).map(([name, build]) => [name, patternOf(build)])) as {
    [K in keyof T]: string;
  };

/** Partition keys (`pk`) of the table. */
export const TABLE_PARTITIONS = patternsOf(partitions);

/** Partition keys (`gsi1pk`) of `gsi1`. */
export const INDEX_PARTITIONS = patternsOf(indexPartitions);

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
