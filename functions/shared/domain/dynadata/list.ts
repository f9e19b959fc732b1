import { isStartKeyOf, type PagedItem, queryItemsPage } from '../../data/dynadata-item-queries';
import { LOG_ENTRIES_TYPE } from '../../data/dynadata-items';
import { ValidationError } from '../../errors';
import { loadCursorKey } from './cursor-key';
import { type PublicItem, toPublicItem } from './items';
import { badCursor, decodeCursor, encodeCursor, queryFingerprint } from './list-cursor';
import { compileFilter } from './list-filter';
import { listLogItems, logCursorPosition } from './list-log';
import type { ListRequest } from './list-request';
import { projectedFields, projectItem } from './projection';
import { resolveType } from './types';

/**
 * Listing items: `{filter?, sort?, limit?, cursor?}` → `{items, nextCursor}`.
 *
 * - `filter`: `{ <field>: <value> | { eq, ne, gt, gte, lt, lte, in, exists, prefix, contains } }` on
 *   top-level fields of the type and on `_id`, `createdAt`, `updatedAt`, ANDed, with the groups `_and`, `_or`
 *   and `_not` (`list-filter.ts`). Ranges of the top-level (ANDed) conditions on `_id` (and `time` of
 *   `log_entries`, and the indexed field sorted by) narrow the key range; other conditions are evaluated by
 *   DynamoDB on the items of the key range. On `log_entries`, `_id` is the sort key itself, so it takes
 *   `eq`, `gt`, `gte`, `lt`, `lte` and `prefix` only (400 for other operators).
 * - `fields`: answer only these fields besides the system fields (`projection.ts`).
 * - `sort`: `{field: '_id', order: 'desc'}` by default (newest first); `asc` for oldest first; or one of the
 *   type's indexed fields, each its own index (items without that field are not part of that order).
 * - `limit` 1–100, default 25.
 * - `cursor`: opaque, HMAC-bound to the company, the type and the filter/sort (another tenant's or another
 *   query's cursor → 400). It carries the DynamoDB key of the last item, so page 500 costs what page 1 costs.
 *   The HMAC key is secret (`cursor-key.ts`), and a decoded key outside the caller's company/type partition
 *   is refused too (400 at `/body/cursor`).
 *
 * Cost: one Query per page when there is no filter. With a filter, a page reads at most
 * `MAX_EXAMINED_PER_PAGE` items of the key range; a page can then hold fewer than `limit` items and still
 * carry a `nextCursor` (as with DynamoDB's own paging). No Scan.
 */
export const MAX_EXAMINED_PER_PAGE = 1000;

export interface ListPage {
  items: PublicItem[];
  nextCursor: string | null;
}

export const listItems = async (
  companyId: string,
  typeName: string,
  request: ListRequest,
): Promise<ListPage> => {
  const type = await resolveType(companyId, typeName);
  const sort = { field: request.sort?.field ?? '_id', order: request.sort?.order ?? 'desc' };
  const indexAt = sort.field === '_id' ? undefined : type.indexed.indexOf(sort.field);
  if (indexAt === -1) {
    throw new ValidationError([
      {
        pointer: '/body/sort/field',
        message: `must be _id${type.indexed.length ? ` or ${type.indexed.join(', ')}` : ''} (indexed fields of ${type.name})`,
      },
    ]);
  }
  const fields = projectedFields(type, request.fields, (i) => `/body/fields/${i}`);
  const limit = request.limit ?? 25;
  const fingerprint = queryFingerprint(companyId, typeName, request.filter, sort);
  const secret = await loadCursorKey();
  let startKey = request.cursor === undefined ? undefined : decodeCursor(secret, fingerprint, request.cursor);
  const compiled = compileFilter(type, request.filter, indexAt === undefined ? undefined : sort.field);
  if (typeName === LOG_ENTRIES_TYPE) {
    // The audit trail is sharded: its pages are merged over its partitions (`list-log.ts`).
    const page = await listLogItems(companyId, {
      forward: sort.order === 'asc',
      compiled,
      ...(startKey ? { after: logCursorPosition(companyId, startKey) } : {}),
      limit,
      maxExamined: MAX_EXAMINED_PER_PAGE,
    });
    return {
      items: page.items.map((item) => projectItem(toPublicItem(item), fields)),
      nextCursor: page.next ? encodeCursor(secret, fingerprint, page.next) : null,
    };
  }
  // A cursor names a key of this company's partition of this type only, whatever its signature.
  if (startKey && !isStartKeyOf(companyId, typeName, indexAt, startKey)) throw badCursor();
  const { keyCondition, filter } = compiled;
  const found: PagedItem[] = [];
  let examined = 0;
  let lastKey: Record<string, unknown> | undefined;
  do {
    const remaining = limit - found.length;
    const page = await queryItemsPage(companyId, typeName, {
      ...(indexAt === undefined ? {} : { index: indexAt }),
      forward: sort.order === 'asc',
      ...(keyCondition ? { keyCondition } : {}),
      ...(filter ? { filter } : {}),
      // One item more than the page needs tells whether another page exists, so the last page has no cursor.
      limit: filter
        ? Math.min(MAX_EXAMINED_PER_PAGE - examined, Math.max(remaining + 1, 100))
        : remaining + 1,
      ...(startKey ? { startKey } : {}),
    });
    examined += page.scanned;
    for (const paged of page.items) if (found.length < limit) found.push(paged);
    lastKey = page.lastKey;
    if (found.length >= limit) {
      // A full page continues after its last item; a Query that returned more stops there too.
      const last = found[found.length - 1];
      if (last && page.items.length > remaining) lastKey = last.startKey;
      break;
    }
    startKey = page.lastKey;
  } while (lastKey && examined < MAX_EXAMINED_PER_PAGE);
  return {
    items: found.map(({ item }) => projectItem(toPublicItem(item), fields)),
    nextCursor: lastKey ? encodeCursor(secret, fingerprint, lastKey) : null,
  };
};
