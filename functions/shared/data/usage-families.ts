import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createTtlCache } from '../ttl-cache';
import type { ComputeCategory, MeterName } from '../types/meters';
import type { BatchEntry } from './batch';
import { ddb, tableName } from './client';
import { partitions, sortKeys } from './keys';
import { updateParams } from './update-expression';
import { usageFigures } from './usage-shards';

/**
 * The month's billed figures, in one item per billing family of the company's usage partition
 * (`M#<yyyy-mm>#<family>`, `docs/decisions/0048-one-usage-item-per-billed-write.md`). A family is the figures
 * one write bills together (a job type's meter with the compute time of its work, `workflow_runs` with the
 * runs' compute time); a billed write makes one `UpdateItem` (or one action of its transaction) of its
 * family's item: it ADDs to each figure's month total (the attribute named by the figure, what allowances
 * are checked against) and to its count of the UTC day (`<code><dd>`, `DAY_CODES`). The item holds at most
 * 3 figures × 32 numbers, under 1 KB on day 31: one write unit. Readers add the items to the month and day
 * items, which still hold what was counted before the families existed.
 */

/** A counted attribute of the usage items: a meter or a compute category. */
export type UsageFigure = MeterName | `compute_ms#${ComputeCategory}`;
export const computeFigure = (category: ComputeCategory): UsageFigure => `compute_ms#${category}`;

/** Amounts to add, by figure; zero and absent figures are left out of the write. */
export type UsageAdditions = Partial<Record<UsageFigure, number>>;

/** A month total that must stay within an allowance after the addition. */
export interface UsageLimit {
  figure: MeterName;
  limit: number;
}

/** Every family and the figures its item may hold (a write of another figure to it is a defect). */
const FAMILIES = {
  workflows: ['workflow_runs', 'compute_ms#workflows'],
  transcode: ['transcode_seconds', 'compute_ms#workers', 'compute_ms#media'],
  transcription: ['transcription_seconds', 'compute_ms#workers', 'compute_ms#media'],
  speech: ['speech_characters', 'compute_ms#workers', 'compute_ms#media'],
  api: ['compute_ms#api'],
  workers: ['compute_ms#workers'],
  media: ['compute_ms#media'],
} as const satisfies Record<string, readonly UsageFigure[]>;
export type UsageFamily = keyof typeof FAMILIES;
export const USAGE_FAMILIES = Object.keys(FAMILIES) as UsageFamily[];

/** The family of a billed meter (`api_requests` is counted in its shards, `usage-shards.ts`). */
const FAMILY_OF_METER: Record<Exclude<MeterName, 'api_requests'>, UsageFamily> = {
  workflow_runs: 'workflows',
  transcode_seconds: 'transcode',
  transcription_seconds: 'transcription',
  speech_characters: 'speech',
};

/** The family of compute time billed alone (a run's finish, the API's shipped compute). */
const FAMILY_OF_CATEGORY: Record<ComputeCategory, UsageFamily> = {
  api: 'api',
  workers: 'workers',
  media: 'media',
  workflows: 'workflows',
};

/** The one-letter code of a figure's day attributes (`t05`: `transcode_seconds` of the 5th). */
const DAY_CODES: Record<Exclude<UsageFigure, 'api_requests'>, string> = {
  workflow_runs: 'w',
  transcode_seconds: 't',
  transcription_seconds: 'r',
  speech_characters: 's',
  'compute_ms#api': 'a',
  'compute_ms#workers': 'k',
  'compute_ms#media': 'm',
  'compute_ms#workflows': 'f',
};

/** The figures a family's item may hold. */
export const familyFigures = (family: string): readonly UsageFigure[] =>
  (FAMILIES as Record<string, readonly UsageFigure[]>)[family] ?? [];

/** The attribute of a figure's count on a UTC date (`yyyy-mm-dd`). */
export const dayAttribute = (figure: UsageFigure, date: string): string =>
  `${DAY_CODES[figure as keyof typeof DAY_CODES]}${date.slice(8, 10)}`;

export const usageFamilyKey = (companyId: string, month: string, family: UsageFamily) => ({
  pk: partitions.usage(companyId),
  sk: sortKeys.usageMonthFamily(month, family),
});

/** The family of one write's figures: its meter's, or its one compute category's. */
export const familyOf = (figures: readonly UsageFigure[]): UsageFamily => {
  const meter = figures.find((figure) => !figure.startsWith('compute_ms#'));
  const family =
    meter === undefined
      ? FAMILY_OF_CATEGORY[(figures[0] ?? '').slice('compute_ms#'.length) as ComputeCategory]
      : FAMILY_OF_METER[meter as keyof typeof FAMILY_OF_METER];
  const held: readonly string[] = family ? FAMILIES[family] : [];
  if (!family || figures.some((figure) => !held.includes(figure)))
    throw new Error(`No usage family holds ${figures.join(', ')} together`);
  return family;
};

/** A family item's month total and day count of each figure (0 where nothing was counted). */
export interface UsageFamilyFigures {
  month: (figure: UsageFigure) => number;
  day: (figure: UsageFigure, date: string) => number;
}

export const toUsageFamily = (item: Record<string, unknown>): UsageFamilyFigures => {
  const number = usageFigures('usage_family', item);
  return { month: number, day: (figure, date) => number(dayAttribute(figure, date)) };
};

/** Every family item of a month, for a batch read. */
export const usageFamilyEntries = (companyId: string, month: string): BatchEntry<UsageFamilyFigures>[] =>
  USAGE_FAMILIES.map((family) => ({ key: usageFamilyKey(companyId, month, family), decode: toUsageFamily }));

/** What the family items counted of `figure` in their month, or on `date` (`yyyy-mm-dd`) when given. */
export const familiesFigure = (
  families: readonly (UsageFamilyFigures | undefined)[],
  figure: UsageFigure,
  date?: string,
): number =>
  families.reduce(
    (sum, family) => sum + (family ? (date ? family.day(figure, date) : family.month(figure)) : 0),
    0,
  );

type FamilyItem = Record<string, number | 'usage_family'>;

/**
 * The update of the family item of `additions` (the month of `date`): ADDs each figure's amount to its month
 * total and to its day attribute, in one action. With `limit`, only while the limited figure's month total
 * stays within it (`#limited < limit - amount + 1` is `#limited + amount <= limit` for the whole units meters
 * count; with no room at all, an absent total fails the comparison too).
 */
export const familyUpdate = (
  companyId: string,
  date: string,
  additions: readonly [UsageFigure, number][],
  limit?: UsageLimit,
) => {
  const family = familyOf(additions.map(([figure]) => figure));
  const amount = limit === undefined ? undefined : additions.find(([figure]) => figure === limit.figure)?.[1];
  const room = limit === undefined || amount === undefined ? undefined : limit.limit - amount + 1;
  return {
    TableName: tableName(),
    Key: usageFamilyKey(companyId, date.slice(0, 7), family),
    ...updateParams<FamilyItem>(
      {
        add: Object.fromEntries(
          additions.flatMap(([figure, value]) => [
            [figure, value],
            [dayAttribute(figure, date), value],
          ]),
        ),
        set: { entity: 'usage_family' },
      },
      room === undefined || limit === undefined
        ? undefined
        : {
            expression:
              room > 0 ? 'attribute_not_exists(#limited) OR #limited < :limit' : '#limited < :limit',
            names: { '#limited': limit.figure },
            values: { ':limit': room },
          },
    ),
  };
};

/**
 * The last month whose month item may hold billed figures counted before the families: from the next month
 * on, an allowance is checked against the family item alone, without reading the month item.
 */
const LAST_MONTH_BILLED_IN_MONTH_ITEMS = '2026-12';

/** What the month item counted of a meter before the families (it no longer grows), 10 minutes per process. */
const monthItemCache = createTtlCache<number>(600_000, 5_000);

const countedInMonthItem = async (companyId: string, month: string, meter: MeterName, now: number) => {
  if (month > LAST_MONTH_BILLED_IN_MONTH_ITEMS) return 0;
  const key = `${companyId}#${month}#${meter}`;
  const cached = monthItemCache.get(key, now);
  if (cached !== undefined) return cached;
  const { Item } = await ddb.send(
    new GetCommand({
      TableName: tableName(),
      Key: { pk: partitions.usage(companyId), sk: sortKeys.usageMonth(month) },
      ProjectionExpression: '#meter',
      ExpressionAttributeNames: { '#meter': meter },
      ConsistentRead: true,
    }),
  );
  const counted = Number(Item?.[meter] ?? 0);
  monthItemCache.set(key, counted, now);
  return counted;
};

/**
 * The limit of a family item's write: the allowance less what the month item counted of the meter before the
 * families, so the two together stay within the allowance exactly.
 */
export const familyLimit = async (companyId: string, now: Date, limit: UsageLimit): Promise<UsageLimit> => ({
  figure: limit.figure,
  limit:
    limit.limit -
    (await countedInMonthItem(companyId, now.toISOString().slice(0, 7), limit.figure, now.getTime())),
});
