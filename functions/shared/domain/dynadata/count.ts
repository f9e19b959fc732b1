import { canonical } from '../../canonical-json';
import { isStartKeyOf, queryItemsPage } from '../../data/dynadata-item-queries';
import { LOG_ENTRIES_TYPE } from '../../data/dynadata-items';
import { getTypeItemCount } from '../../data/dynadata-types';
import { loadCursorKey } from './cursor-key';
import { badCursor, decodeCursor, encodeCursor } from './list-cursor';
import { compileFilter } from './list-filter';
import { countLogEntries } from './list-log';
import type { ListFilter } from './list-request';
import { resolveType } from './types';

/**
 * Filtered counts (and counts of `log_entries`) read the key range, so one call examines at most
 * `COUNT_MAX_EXAMINED` items: when the range holds more, the answer is `{count, complete: false, cursor}`
 * and the same call with that `cursor` continues; the cursor carries the running total, so the answer with
 * `complete: true` holds the count of the whole range (as DynamoDB's own paged `Select: COUNT`). Unfiltered
 * counts of other types read the type's item counter (one GetItem) and are always complete: a custom type's
 * counter is kept by every item write, `contacts`' from the table's stream a moment after each write (0063). The cursor is bound like list cursors (company, type, filter; another one → 400 at
 * `/body/cursor`).
 */
export const COUNT_MAX_EXAMINED = 10_000;

export interface CountAnswer {
  count: number;
  complete: boolean;
  cursor: string | null;
}

export const countItems = async (
  companyId: string,
  typeName: string,
  filter?: ListFilter,
  options: { cursor?: string; maxExamined?: number } = {},
): Promise<CountAnswer> => {
  const type = await resolveType(companyId, typeName);
  const unfiltered = filter === undefined || Object.keys(filter).length === 0;
  if (unfiltered && typeName !== LOG_ENTRIES_TYPE && options.cursor === undefined)
    return { count: await getTypeItemCount(companyId, typeName), complete: true, cursor: null };
  const { keyCondition, filter: f, range } = compileFilter(type, filter);
  const maxExamined = options.maxExamined ?? COUNT_MAX_EXAMINED;
  const secret = await loadCursorKey();
  const fingerprint = JSON.stringify(['count', companyId, typeName, canonical(filter ?? null)]);
  if (typeName === LOG_ENTRIES_TYPE) {
    const state =
      options.cursor === undefined ? undefined : decodeCursor(secret, fingerprint, options.cursor);
    const counted = await countLogEntries(
      companyId,
      { ...range, ...(f ? { filter: f } : {}) },
      maxExamined,
      state,
    );
    return counted.next
      ? { count: counted.count, complete: false, cursor: encodeCursor(secret, fingerprint, counted.next) }
      : { count: counted.count, complete: true, cursor: null };
  }
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  if (options.cursor !== undefined) {
    const state = decodeCursor(secret, fingerprint, options.cursor) as { key?: unknown; count?: unknown };
    const key = state.key as Record<string, unknown> | undefined;
    if (
      typeof state.count !== 'number' ||
      typeof key !== 'object' ||
      key === null ||
      !isStartKeyOf(companyId, typeName, undefined, key)
    )
      throw badCursor();
    count = state.count;
    startKey = key;
  }
  let examined = 0;
  do {
    const page = await queryItemsPage(companyId, typeName, {
      forward: true,
      ...(keyCondition ? { keyCondition } : {}),
      ...(f ? { filter: f } : {}),
      limit: maxExamined - examined,
      countOnly: true,
      ...(startKey ? { startKey } : {}),
    });
    count += page.count;
    examined += page.scanned;
    startKey = page.lastKey;
  } while (startKey && examined < maxExamined);
  return startKey
    ? { count, complete: false, cursor: encodeCursor(secret, fingerprint, { key: startKey, count }) }
    : { count, complete: true, cursor: null };
};
