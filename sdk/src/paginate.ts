import { apiErrorOf } from './errors.js';
import { operationFacts } from './operation-index.js';
import type { PagedOperationId, PageInput, PageItem } from './operation-types.js';
import type { FetchLike } from './retry.js';

/**
 * Async iterators over the paged lists of the API, driven by the document: the build marks each operation
 * that follows the paging rule (a cursor in, the next cursor and one array out; see
 * `scripts/operation-table.ts`), and one iterator serves them all. It asks for a page, yields each element
 * of the page's array, and asks again with the answer's next cursor until that is null or absent. A refused
 * page throws an `ApiError`; the requests go through the same retrying `fetch` as the typed client.
 */

export interface Transport {
  baseUrl: string;
  headers: Record<string, string>;
  fetch: FetchLike;
}

interface LooseInput {
  path?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  cursor?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const scalar = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);

const urlOf = (
  baseUrl: string,
  template: string,
  input: LooseInput,
  query: Record<string, unknown>,
): string => {
  const path = template.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    const value = input.path?.[name];
    if (value === undefined) throw new Error(`missing path parameter \`${name}\` of ${template}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, scalar(one));
  }
  const qs = search.toString();
  return `${baseUrl.replace(/\/+$/, '')}${path}${qs === '' ? '' : `?${qs}`}`;
};

async function* pages(
  transport: Transport,
  id: PagedOperationId,
  input: LooseInput,
): AsyncGenerator<unknown> {
  const { method, path, page } = operationFacts(id);
  if (page === null) throw new Error(`${id} is not a paged operation`);
  let cursor = input.cursor;
  for (;;) {
    const withCursor = (values: Record<string, unknown> | undefined) =>
      cursor === undefined ? { ...values } : { ...values, [page.cursor]: cursor };
    const query = page.cursorIn === 'query' ? withCursor(input.query) : { ...input.query };
    const body = page.cursorIn === 'body' ? withCursor(input.body) : input.body;
    const hasBody = body !== undefined || method !== 'get';
    const request = new Request(urlOf(transport.baseUrl, path, input, query), {
      method: method.toUpperCase(),
      headers: { ...transport.headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
      body: hasBody ? JSON.stringify(body ?? {}) : undefined,
    });
    const response = await transport.fetch(request);
    if (!response.ok) throw await apiErrorOf(response);
    const answer: unknown = await response.json();
    const elements = isRecord(answer) ? answer[page.items] : undefined;
    if (!Array.isArray(elements))
      throw new Error(`${id} answered a page without its \`${page.items}\` array`);
    yield* elements;
    const next = isRecord(answer) ? answer[page.next] : undefined;
    if (typeof next !== 'string' || next === '') return;
    cursor = next;
  }
}

/**
 * Iterates every element of a paged operation, page after page:
 * `for await (const item of paginate(transport, 'listDynadataItems', { path: { type }, body: { limit: 50 } }))`.
 */
export function paginate<Id extends PagedOperationId>(
  transport: Transport,
  id: Id,
  input: PageInput<Id>,
): AsyncGenerator<PageItem<Id>>;
export function paginate(
  transport: Transport,
  id: PagedOperationId,
  input: LooseInput,
): AsyncGenerator<unknown> {
  return pages(transport, id, input);
}
