/**
 * The error the resource methods, waiters and page iterators throw when the API refuses a request. It keeps
 * the RFC 9457 problem the API answered as read (`body`). `Code` is the union of problem codes the document
 * declares for the operation (a method's `isError(e)` narrows to it); a newer API may still answer a code
 * this build does not know, which `code` carries as answered. The path client (`createApiClient`) does not
 * throw: `openapi-fetch` returns `{ data, error, response }`, with `error` typed as the document's `Problem`.
 */
export class ApiError<Code extends string = string> extends Error {
  readonly status: number;
  /** The problem body as answered, or undefined when the body was not a JSON object. */
  readonly body: Readonly<Record<string, unknown>> | undefined;
  /** The answer's headers (`Retry-After`, `x-request-id`), when known. */
  readonly headers: Headers | undefined;
  /** The operation refused, when a resource method called it. */
  readonly operationId: string | undefined;

  constructor(
    status: number,
    body: Record<string, unknown> | undefined,
    headers?: Headers,
    operationId?: string,
  ) {
    const text = (key: string): string | undefined =>
      typeof body?.[key] === 'string' ? String(body[key]) : undefined;
    super(
      `${status} ${text('code') ?? 'error'}: ${text('detail') ?? text('title') ?? 'the API refused the request'}`,
    );
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.operationId = operationId;
  }

  private field(key: string): string | undefined {
    const value = this.body?.[key];
    return typeof value === 'string' ? value : undefined;
  }

  /** The problem's stable machine code (`not_found`, `quota_exceeded`, …). */
  get code(): Code | undefined {
    return this.field('code') as Code | undefined;
  }

  /** The request's id, to quote in a support request. */
  get requestId(): string | undefined {
    return this.field('requestId');
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a refused answer into an `ApiError`. */
export const apiErrorOf = async (response: Response): Promise<ApiError> => {
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = undefined;
  }
  return new ApiError(response.status, isRecord(body) ? body : undefined, response.headers);
};
