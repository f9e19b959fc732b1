/**
 * The error the SDK's own helpers (the page iterators) throw when the API refuses a request. It keeps the
 * RFC 9457 problem the API answered as read (`body`) and exposes its stable fields as plain strings, since a
 * newer API may answer a `code` this build of the SDK does not know yet. The typed client itself does not
 * throw: `openapi-fetch` returns `{ data, error, response }`, with `error` typed as the document's `Problem`.
 */
export class ApiError extends Error {
  readonly status: number;
  /** The problem body as answered, or undefined when the body was not a JSON object. */
  readonly body: Readonly<Record<string, unknown>> | undefined;

  constructor(status: number, body: Record<string, unknown> | undefined) {
    const text = (key: string): string | undefined =>
      typeof body?.[key] === 'string' ? String(body[key]) : undefined;
    super(
      `${status} ${text('code') ?? 'error'}: ${text('detail') ?? text('title') ?? 'the API refused the request'}`,
    );
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }

  private field(key: string): string | undefined {
    const value = this.body?.[key];
    return typeof value === 'string' ? value : undefined;
  }

  /** The problem's stable machine code (`not_found`, `quota_exceeded`, …). */
  get code(): string | undefined {
    return this.field('code');
  }

  /** The request's id, to quote in a support request. */
  get requestId(): string | undefined {
    return this.field('requestId');
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads a refused answer into an `ApiError`. */
export const apiErrorOf = async (response: Response): Promise<ApiError> => {
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = undefined;
  }
  return new ApiError(response.status, isRecord(body) ? body : undefined);
};
