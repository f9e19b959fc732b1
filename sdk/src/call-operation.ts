import type { ApiClient } from './client.js';
import { ApiError, isRecord } from './errors.js';
import { OPERATIONS } from './generated/operations.js';
import type { OperationId, SuccessBody } from './operation-types.js';

/**
 * One call of an operation by its id, for the resource methods, the waiters and `storage.upload`: through the
 * path client (credential, idempotency keys, retries), the input object placed as the operation table says
 * (the JSON body, or the query of an operation without a body), a refusal thrown as an `ApiError`.
 */

export type Loose = Record<string, unknown>;
type Call = (path: string, init: Loose) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** A success body and the answer it came in (the waiters read `Retry-After`). */
export interface Answer {
  data: unknown;
  response: Response;
}

/** An operation's resource method, as the build writes it into the table (`scripts/sdk-methods.ts`). */
export interface SdkFacts {
  name: string;
  bound: readonly string[];
  args: readonly string[];
  query: readonly string[];
  body: 'required' | 'optional' | null;
  waiter: { name: string; member: string; final: readonly string[] } | null;
}

/** An operation's run-time facts, its resource method read loosely. */
export interface Facts {
  method: string;
  path: string;
  page: unknown;
  sdk: SdkFacts | null;
}

/** The facts of operation `id`. */
export const factsOf = (id: OperationId): Facts => OPERATIONS[id] as Facts;

/** Calls operation `id`; throws an `ApiError` unless the API answers 2xx (or 304 to `If-None-Match`). */
export const callOperation = async (
  api: ApiClient,
  id: OperationId,
  path: Loose,
  input: unknown,
  options: Loose = {},
): Promise<Answer> => {
  const { method, path: template, sdk } = factsOf(id);
  const hasBody = sdk?.body !== null && sdk?.body !== undefined;
  const key = typeof options.idempotencyKey === 'string' ? { 'Idempotency-Key': options.idempotencyKey } : {};
  const header = { ...(isRecord(options.headers) ? options.headers : {}), ...key };
  const init: Loose = {
    params: { path, query: hasBody ? options.query : input, header },
    ...(hasBody && input !== undefined ? { body: input } : {}),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const call = (api as unknown as Record<string, Call>)[method.toUpperCase()];
  if (call === undefined) throw new Error(`${id}: the client has no ${method.toUpperCase()} method`);
  const { data, error, response } = await call(template, init);
  if (!response.ok && response.status !== 304) {
    throw new ApiError(response.status, isRecord(error) ? error : undefined, response.headers, id);
  }
  return { data, response };
};

/** `callOperation`, answering the operation's success body as its generated type. */
export const callFor = async <Id extends OperationId>(
  api: ApiClient,
  id: Id,
  path: Loose,
  input: unknown,
): Promise<SuccessBody<Id>> => (await callOperation(api, id, path, input)).data as SuccessBody<Id>;
