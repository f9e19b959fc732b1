import { toStoredItem } from '../../data/dynadata-items';
import { legacyLogEntryKey } from '../../data/log-entries';
import {
  type LogReadOptions,
  logPartitionsInRange,
  queryLogPartition,
  readLogEntries,
} from '../../data/log-entry-reads';
import { badCursor } from './list-cursor';
import type { compileFilter } from './list-filter';

/**
 * Listing `log_entries`: the entries are spread over a partition per UTC day and shard (`log-entries.ts`), so
 * a page is a k-way merge of those partitions by sort key (`<epoch ms>#<requestId>`, the order of `_id`),
 * with the same filter, key range and order as any type. The cursor carries the sort key of the last entry
 * given; every partition resumes after it, so no entry is skipped or given twice across days and shards. A
 * cursor written before the sharding (the key of the single partition) resumes the same way.
 */
const LOG_SORT_KEY = /^\d{15}#.{1,100}$/;

/** The position a list cursor of `log_entries` resumes after, or 400 when it is not one. */
export const logCursorPosition = (companyId: string, state: Record<string, unknown>): string => {
  const position =
    state.after ?? (state.pk === legacyLogEntryKey(companyId, 0, '').pk ? state.sk : undefined);
  if (typeof position !== 'string' || !LOG_SORT_KEY.test(position)) throw badCursor();
  return position;
};

export const listLogItems = async (
  companyId: string,
  options: {
    forward: boolean;
    compiled: ReturnType<typeof compileFilter>;
    after?: string;
    limit: number;
    maxExamined: number;
  },
) => {
  const { compiled } = options;
  const { items, resumeAfter } = await readLogEntries(companyId, {
    forward: options.forward,
    ...compiled.range,
    ...(options.after === undefined ? {} : { after: options.after }),
    ...(compiled.filter ? { filter: compiled.filter } : {}),
    want: options.limit,
    maxExamined: options.maxExamined,
  });
  return {
    items: items.map((raw) => toStoredItem('log_entries', raw)),
    next: resumeAfter === undefined ? undefined : { after: resumeAfter },
  };
};

/**
 * Counts `log_entries` partition after partition (the pre-sharding one, then by day and shard): at most
 * `maxExamined` items a call; the cursor state names the partition and key reached and the running count.
 */
export const countLogEntries = async (
  companyId: string,
  range: Pick<LogReadOptions, 'lower' | 'upper' | 'filter'>,
  maxExamined: number,
  state?: Record<string, unknown>,
): Promise<{ count: number; next?: { pk: string; key?: Record<string, unknown>; count: number } }> => {
  const pks = (await logPartitionsInRange(companyId, range)).map(({ pk }) => pk);
  let count = 0;
  let from = 0;
  let startKey: Record<string, unknown> | undefined;
  if (state) {
    const key = state.key as Record<string, unknown> | undefined;
    if (
      typeof state.count !== 'number' ||
      typeof state.pk !== 'string' ||
      !pks.includes(state.pk) ||
      (key !== undefined &&
        (typeof key !== 'object' || key === null || key.pk !== state.pk || typeof key.sk !== 'string'))
    )
      throw badCursor();
    count = state.count;
    from = pks.indexOf(state.pk);
    startKey = key === undefined ? undefined : { pk: key.pk, sk: key.sk };
  }
  let examined = 0;
  for (let i = from; i < pks.length; i++) {
    const pk = pks[i] as string;
    do {
      if (examined >= maxExamined)
        return { count, next: { pk, ...(startKey ? { key: startKey } : {}), count } };
      const page = await queryLogPartition(
        pk,
        { ...range, forward: true, want: 0 },
        undefined,
        maxExamined - examined,
        startKey,
        true,
      );
      count += page.count;
      examined += page.scanned;
      startKey = page.lastKey;
    } while (startKey);
  }
  return { count };
};
