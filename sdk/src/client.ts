import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import type { PagedOperationId, PageInput, PageItem } from './operation-types.js';
import { paginate } from './paginate.js';
import { type FetchLike, type RetryOptions, retryingFetch } from './retry.js';
import { USER_AGENT } from './user-agent.js';

/**
 * The client: `openapi-fetch` typed with the paths generated from the document (every path, method,
 * parameter, body and answer checked at compile time), over the SDK's request layer (credential header,
 * idempotency keys, retries; `retry.ts`), plus `paginate`, the async iterator over every paged list.
 */

/**
 * The credential, sent on every request:
 * - `apiKey`: `x-api-key: sk-…`, the company's long-lived key;
 * - `jwt`: `x-jwt-token: <JWT>`, a short-lived token the platform signed (accepted by every route);
 * - `bearer`: `Authorization: Bearer <key or JWT>`, which the API accepts on `POST /v1/mcp` only.
 */
export type Credential = { apiKey: string } | { jwt: string } | { bearer: string };

export interface ApiClientOptions {
  /** Origin of the API, with a base path if it has one: `https://api.example.com`, `http://127.0.0.1:3000`. */
  baseUrl: string;
  credential?: Credential;
  retry?: RetryOptions;
  /**
   * Time each attempt has to answer (up to its headers), in ms: default 60 000; 0 or Infinity for none.
   * A timed-out attempt is retried like a network error; the last one throws a `RequestTimeoutError`.
   */
  timeoutMs?: number;
  /**
   * Headers sent with every request (the credential's header wins over one of the same name). The client
   * sends `User-Agent: messaging-dynadata-api-sdk/<version> node/<version>` unless one is given here.
   */
  headers?: Record<string, string>;
  /** The `fetch` underneath (default `globalThis.fetch`): a test double, a proxy agent. */
  fetch?: FetchLike;
}

export type ApiClient = Client<paths> & {
  /** Every element of a paged list, following its cursor page after page. */
  paginate: <Id extends PagedOperationId>(id: Id, input: PageInput<Id>) => AsyncGenerator<PageItem<Id>>;
};

const credentialHeaders = (credential: Credential | undefined): Record<string, string> => {
  if (credential === undefined) return {};
  if ('apiKey' in credential) return { 'x-api-key': credential.apiKey };
  if ('jwt' in credential) return { 'x-jwt-token': credential.jwt };
  return { authorization: `Bearer ${credential.bearer}` };
};

export const createApiClient = (options: ApiClientOptions): ApiClient => {
  const ownAgent = Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'user-agent');
  const headers = {
    ...(ownAgent ? {} : { 'user-agent': USER_AGENT }),
    ...options.headers,
    ...credentialHeaders(options.credential),
  };
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const fetch = retryingFetch(fetchImpl, options.retry, options.timeoutMs);
  const client = createClient<paths>({ baseUrl: options.baseUrl, headers, fetch });
  const transport = { baseUrl: options.baseUrl, headers, fetch };
  return Object.assign(client, {
    paginate: <Id extends PagedOperationId>(id: Id, input: PageInput<Id>) => paginate(transport, id, input),
  });
};
