import { ValidationError } from '../errors';

/**
 * Pages of the lists whose members are few by construction and read in one query (webhook endpoints, at most
 * the plan's `webhookEndpoints`; workflow definitions; Dynadata types): ordered by id, the cursor is the last
 * id shown, so the rule (`limit` and `cursor` in, `nextCursor` out) is the one every list follows.
 */
/** The largest page of these lists, also their default: a client that never pages sees up to this many. */
export const MAX_LIST_PAGE = 100;

/** Job lists (`GET /v1/transcodes`, `GET /v1/transcriptions`): 20 a page by default, at most 100. */
export const DEFAULT_JOB_PAGE = 20;
export const MAX_JOB_PAGE = 100;
/** What one page of a job list filtered by `status` examines at most: a page of rare matches ends early, with a cursor. */
export const MAX_JOB_FILTER_EXAMINED = 1000;

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface Page<T> {
  page: T[];
  nextCursor: string | null;
}

/**
 * The one check of a list's `cursor` (every list of the query string: jobs, runs, events, types, workflows,
 * webhook endpoints): a cursor is what the list answered as `nextCursor`, so a value that cannot be one of
 * that list (`pattern`) is refused with 400 `validation_failed` at `/query/cursor`, never read as a place in
 * the list. Answers the cursor to read on from.
 */
export const listCursor = (cursor: string | undefined, pattern: RegExp): string | undefined => {
  if (cursor !== undefined && !pattern.test(cursor)) {
    throw new ValidationError(
      [{ pointer: '/query/cursor', message: 'is not a cursor of this list; start again without a cursor' }],
      'The cursor is not one of this list.',
    );
  }
  return cursor;
};

/**
 * One page of `members`, in the order of `orderOf` (a sortable text computed from an id alone, so a cursor
 * whose member was deleted since still finds its place); by default the id itself.
 */
export const pageById = <T>(
  members: readonly T[],
  idOf: (member: T) => string,
  request: PageRequest,
  options: {
    defaultLimit: number;
    /** What an id of these members looks like: any other cursor is refused (`listCursor`). */
    idPattern: RegExp;
    orderOf?: (id: string) => string;
  },
): Page<T> => {
  const { defaultLimit, idPattern, orderOf = (id: string) => id } = options;
  const cursor = listCursor(request.cursor, idPattern);
  const keyed = members.map((member) => ({ member, key: orderOf(idOf(member)) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const after = cursor === undefined ? undefined : orderOf(cursor);
  const rest = after === undefined ? keyed : keyed.filter(({ key }) => key > after);
  const limit = request.limit ?? defaultLimit;
  const page = rest.slice(0, limit).map(({ member }) => member);
  const last = page.at(-1);
  return { page, nextCursor: rest.length > limit && last !== undefined ? idOf(last) : null };
};
