import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonical } from '../../canonical-json';
import {
  type ItemQuery,
  isStartKeyOf,
  LOG_ENTRIES_TYPE,
  type PagedItem,
  queryItemsPage,
} from '../../data/dynadata-items';
import { getTypeItemCount } from '../../data/dynadata-types';
import { type FieldError, ValidationError } from '../../errors';
import { loadCursorKey } from './cursor-key';
import { type PublicItem, toPublicItem } from './items';
import type { ListFilter, ListFilterCondition, ListRequest } from './list-request';
import { type ResolvedType, resolveType } from './types';

/**
 * Listing items: `{filter?, sort?, limit?, cursor?}` → `{items, nextCursor}`.
 *
 * - `filter`: `{ <field>: <value> | { eq, ne, gt, gte, lt, lte, in, exists, prefix } }` on top-level fields
 *   of the type and on `_id`, `createdAt`, `updatedAt`; conditions are ANDed. `_id` ranges (and `time`
 *   ranges of `log_entries`) narrow the key range; other conditions are evaluated by DynamoDB on the items of
 *   the key range. On `log_entries`, `_id` is the sort key itself, so it takes `eq`, `gt`, `gte`, `lt`, `lte`
 *   and `prefix` only (400 for other operators), all applied as the key range.
 * - `sort`: `{field: '_id', order: 'desc'}` by default (newest first); `asc` for oldest first; or the
 *   type's indexed field (items without that field are not part of that order).
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

const mac = (key: string, text: string): Buffer => createHmac('sha256', key).update(text).digest();

const queryFingerprint = (companyId: string, typeName: string, filter: unknown, sort: unknown): string =>
  JSON.stringify([companyId, typeName, canonical(filter ?? null), canonical(sort)]);

export const encodeCursor = (secret: string, fingerprint: string, key: Record<string, unknown>): string => {
  const payload = Buffer.from(JSON.stringify(key)).toString('base64url');
  const tag = mac(secret, `${fingerprint}\n${payload}`).toString('base64url');
  return `${payload}.${tag}`;
};

const badCursor = (): ValidationError =>
  new ValidationError(
    [{ pointer: '/body/cursor', message: 'is not a cursor of this query; start again without a cursor' }],
    'The cursor is not valid for this query.',
  );

export const decodeCursor = (
  secret: string,
  fingerprint: string,
  cursor: string,
): Record<string, unknown> => {
  const [payload, tag, extra] = cursor.split('.');
  if (!payload || !tag || extra !== undefined) throw badCursor();
  const expected = mac(secret, `${fingerprint}\n${payload}`);
  const given = Buffer.from(tag, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw badCursor();
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw badCursor();
  }
};

const SYSTEM_FILTER_FIELDS = ['_id', 'createdAt', 'updatedAt'];

interface Compiled {
  keyCondition?: ItemQuery['keyCondition'];
  filter?: NonNullable<ItemQuery['filter']>;
}

const OPS: Record<string, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };

const epochKey = (iso: unknown, pointer: string, errors: FieldError[]): string | undefined => {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) {
    errors.push({ pointer, message: 'must be a date-time' });
    return undefined;
  }
  return String(ms).padStart(15, '0');
};

const LOG_ID_OPS = ['eq', 'gt', 'gte', 'lt', 'lte', 'prefix'];

/** Sort key (or sort-key prefix) of a log entry `_id` (or `_id` prefix): `<15 digits>-<id>` → `<15 digits>#<id>`. */
const logSortKeyOfId = (id: string): string => (id[15] === '-' ? `${id.slice(0, 15)}#${id.slice(16)}` : id);

/** Compiles the filter into a key condition (id or time range) and a filter expression. */
export const compileFilter = (
  type: ResolvedType,
  filter: ListFilter | undefined,
  useIndex: boolean,
): Compiled => {
  const errors: FieldError[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses: string[] = [];
  let lower: string | undefined;
  let upper: string | undefined;
  let beginsWith: string | undefined;
  const fields = Object.keys((type.schema.properties ?? {}) as Record<string, unknown>);
  const isLog = type.name === LOG_ENTRIES_TYPE;
  let n = 0;
  for (const [field, raw] of Object.entries(filter ?? {})) {
    const pointer = `/body/filter/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (!fields.includes(field) && !SYSTEM_FILTER_FIELDS.includes(field)) {
      errors.push({ pointer, message: `is not a field of ${type.name}` });
      continue;
    }
    const condition: ListFilterCondition =
      typeof raw === 'object' && raw !== null ? raw : { eq: raw as string | number | boolean | null };
    if (Object.keys(condition).length === 0) errors.push({ pointer, message: 'needs at least one operator' });
    if (isLog && field === '_id') {
      // A log entry's `_id` is its sort key (`-` for `#`), which only a key condition may compare.
      for (const [op, value] of Object.entries(condition)) {
        if (value === undefined) continue;
        if (!LOG_ID_OPS.includes(op)) {
          errors.push({
            pointer: `${pointer}/${op}`,
            message: `on log_entries _id use ${LOG_ID_OPS.join(', ')}`,
          });
          continue;
        }
        if (typeof value !== 'string') {
          errors.push({ pointer: `${pointer}/${op}`, message: 'must be a string' });
          continue;
        }
        const key = logSortKeyOfId(value);
        const from = op === 'gt' ? `${key}\u0000` : key;
        const to = op === 'prefix' ? `${key}\uffff` : key;
        if (op !== 'lt' && op !== 'lte') lower = lower === undefined || from > lower ? from : lower;
        if (op !== 'gt' && op !== 'gte') upper = upper === undefined || to < upper ? to : upper;
        // `lt` excludes the one entry whose sort key is the bound itself (request ids are unique).
        const full = /^\d{15}#(.+)$/.exec(key);
        if (op === 'lt' && full?.[1]) {
          names['#rid'] = 'requestId';
          values[`:v${n}_lt`] = full[1];
          clauses.push(`#rid <> :v${n}_lt`);
        }
      }
      n++;
      continue;
    }
    // Attribute path of the field in the stored item.
    let path: string;
    if (isLog) {
      const attr = field === 'createdAt' || field === 'updatedAt' ? 'time' : field;
      names[`#f${n}`] = attr;
      path = `#f${n}`;
    } else if (SYSTEM_FILTER_FIELDS.includes(field)) {
      names[`#f${n}`] = field;
      path = `#f${n}`;
    } else {
      names['#data'] = 'data';
      names[`#f${n}`] = field;
      path = `#data.#f${n}`;
    }
    // Key ranges: `_id` of items, `time` (and the timestamps) of log entries.
    const keyField =
      !useIndex && ((isLog && (field === 'time' || field === 'createdAt')) || (!isLog && field === '_id'));
    for (const [op, value] of Object.entries(condition)) {
      if (value === undefined) continue;
      const v = `:v${n}_${op}`;
      if (op in OPS) {
        clauses.push(`${path} ${OPS[op]} ${v}`);
        values[v] = value;
        if (keyField && ['gt', 'gte', 'lt', 'lte', 'eq'].includes(op)) {
          const key = isLog ? epochKey(value, `${pointer}/${op}`, errors) : String(value);
          if (key !== undefined) {
            if (op !== 'lt' && op !== 'lte') lower = lower === undefined || key > lower ? key : lower;
            if (op !== 'gt' && op !== 'gte') {
              const top = isLog ? `${key}#\uffff` : key;
              upper = upper === undefined || top < upper ? top : upper;
            }
          }
        }
      } else if (op === 'in') {
        const list = value as unknown[];
        const refs = list.map((item, i) => {
          values[`${v}${i}`] = item;
          return `${v}${i}`;
        });
        clauses.push(`${path} IN (${refs.join(', ')})`);
      } else if (op === 'exists') {
        clauses.push(value ? `attribute_exists(${path})` : `attribute_not_exists(${path})`);
      } else if (op === 'prefix') {
        clauses.push(`begins_with(${path}, ${v})`);
        values[v] = value;
        if (keyField && !isLog) beginsWith = String(value);
      }
    }
    n++;
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const compiled: Compiled = {};
  if (lower !== undefined && upper !== undefined) {
    compiled.keyCondition = {
      expression: '#sk BETWEEN :klo AND :khi',
      values: { ':klo': lower, ':khi': upper },
    };
    if (lower > upper) compiled.keyCondition.values[':khi'] = lower;
  } else if (lower !== undefined)
    compiled.keyCondition = { expression: '#sk >= :klo', values: { ':klo': lower } };
  else if (upper !== undefined)
    compiled.keyCondition = { expression: '#sk <= :khi', values: { ':khi': upper } };
  else if (beginsWith !== undefined)
    compiled.keyCondition = { expression: 'begins_with(#sk, :kpre)', values: { ':kpre': beginsWith } };
  if (clauses.length > 0) compiled.filter = { expression: clauses.join(' AND '), names, values };
  return compiled;
};

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
  const useIndex = sort.field !== '_id';
  if (useIndex && !type.indexed.includes(sort.field)) {
    throw new ValidationError([
      {
        pointer: '/body/sort/field',
        message: `must be _id${type.indexed.length ? ` or ${type.indexed.join(', ')}` : ''} (indexed fields of ${type.name})`,
      },
    ]);
  }
  const limit = request.limit ?? 25;
  const fingerprint = queryFingerprint(companyId, typeName, request.filter, sort);
  const secret = await loadCursorKey();
  let startKey = request.cursor === undefined ? undefined : decodeCursor(secret, fingerprint, request.cursor);
  // A cursor names a key of this company's partition of this type only, whatever its signature.
  if (startKey && !isStartKeyOf(companyId, typeName, useIndex, startKey)) throw badCursor();
  const { keyCondition, filter } = compileFilter(type, request.filter, useIndex);
  const found: PagedItem[] = [];
  let examined = 0;
  let lastKey: Record<string, unknown> | undefined;
  do {
    const remaining = limit - found.length;
    const page = await queryItemsPage(companyId, typeName, {
      useIndex,
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
    items: found.map(({ item }) => toPublicItem(item)),
    nextCursor: lastKey ? encodeCursor(secret, fingerprint, lastKey) : null,
  };
};

/**
 * Filtered counts (and counts of `log_entries`) read the key range, so one call examines at most
 * `COUNT_MAX_EXAMINED` items: when the range holds more, the answer is `{count, complete: false, cursor}`
 * and the same call with that `cursor` continues; the cursor carries the running total, so the answer with
 * `complete: true` holds the count of the whole range (as DynamoDB's own paged `Select: COUNT`). Unfiltered
 * counts of other types read the type's item counter (kept by every item write, one GetItem) and are always
 * complete. The cursor is bound like list cursors (company, type, filter; another one → 400 at
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
  const { keyCondition, filter: f } = compileFilter(type, filter, false);
  const maxExamined = options.maxExamined ?? COUNT_MAX_EXAMINED;
  const secret = await loadCursorKey();
  const fingerprint = JSON.stringify(['count', companyId, typeName, canonical(filter ?? null)]);
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  if (options.cursor !== undefined) {
    const state = decodeCursor(secret, fingerprint, options.cursor) as { key?: unknown; count?: unknown };
    const key = state.key as Record<string, unknown> | undefined;
    if (
      typeof state.count !== 'number' ||
      typeof key !== 'object' ||
      key === null ||
      !isStartKeyOf(companyId, typeName, false, key)
    )
      throw badCursor();
    count = state.count;
    startKey = key;
  }
  let examined = 0;
  do {
    const page = await queryItemsPage(companyId, typeName, {
      useIndex: false,
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
