import { operationOf } from './operation-index.js';

/**
 * The request layer under every call of the SDK: a `fetch` that adds an `Idempotency-Key` where the document
 * declares one and retries what is safe to retry.
 *
 * - Keys: a POST whose operation declares the `Idempotency-Key` header gets a random UUID unless the caller
 *   passed one; the key is fixed before the first attempt, so every retry of the call carries the same key and
 *   the API answers a repeated request with its first answer instead of doing the work twice.
 * - Timeout: each attempt gets `timeoutMs` (default 60 s; 0 or Infinity turn it off) to answer, up to its
 *   headers; the caller's own `AbortSignal` still aborts at any time. An attempt that timed out counts as a
 *   network error; when no attempt is left the call throws a `RequestTimeoutError`.
 * - What is retried: 429 always (the API refuses it before doing any work); 409
 *   `idempotency_request_in_progress` (the first request with the same key is still running; the API asks
 *   to come back after its `Retry-After`), but no other 409; 5xx, network errors and timeouts only when
 *   repeating the request is harmless: a GET, HEAD, OPTIONS, PUT or DELETE, a request that carries an
 *   idempotency key, or a paged list (a read). A POST without a key (`POST /v1/mcp`, say) is not
 *   repeated on a 5xx, as it may have been carried out; `retryUnsafe` repeats it anyway.
 * - When: exponential backoff with full jitter (`random × min(maxDelayMs, baseDelayMs × 2^(attempt−1))`), or
 *   the answer's `Retry-After` (seconds, or an HTTP date) when it has one. A `Retry-After` longer than
 *   `maxDelayMs` (a monthly quota that resets in days) is returned to the caller at once, not waited out.
 */

export interface RetryOptions {
  /** Attempts per call, the first included (default 3; 1 turns retries off). */
  maxAttempts?: number;
  /** Backoff of the first retry before jitter, in ms (default 200). */
  baseDelayMs?: number;
  /** Longest wait between attempts, in ms (default 10 000); a longer `Retry-After` is not waited out. */
  maxDelayMs?: number;
  /** Also repeat requests that may have been carried out (POSTs without an idempotency key) on 5xx. */
  retryUnsafe?: boolean;
  /** Waits between attempts (default `setTimeout`); tests replace it. */
  sleep?: (ms: number) => Promise<void>;
  /** Random number in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
}

export type FetchLike = (request: Request) => Promise<Response>;

/** Time an attempt has to answer by default: 60 s. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Thrown when a call's last attempt got no answer within the timeout. */
export class RequestTimeoutError extends Error {
  /** The timeout of each attempt, in ms. */
  readonly timeoutMs: number;
  /** Attempts made, the last one timed out. */
  readonly attempts: number;

  constructor(request: Request, timeoutMs: number, attempts: number) {
    super(
      `${request.method} ${request.url} got no answer within ${timeoutMs} ms` +
        (attempts > 1 ? ` (attempt ${attempts})` : ''),
    );
    this.name = 'RequestTimeoutError';
    this.timeoutMs = timeoutMs;
    this.attempts = attempts;
  }
}

const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `Retry-After` in ms, from seconds or an HTTP date; undefined when absent or unreadable. */
export const retryAfterMs = (value: string | null, now = Date.now()): number | undefined => {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};

const withIdempotencyKey = (request: Request): Request => {
  if (request.method !== 'POST' || request.headers.has(IDEMPOTENCY_HEADER)) return request;
  if (operationOf(request.method, request.url)?.idempotencyKey !== true) return request;
  const headers = new Headers(request.headers);
  headers.set(IDEMPOTENCY_HEADER, crypto.randomUUID());
  return new Request(request, { headers });
};

const isRepeatable = (request: Request): boolean =>
  REPEATABLE_METHODS.has(request.method) ||
  request.headers.has(IDEMPOTENCY_HEADER) ||
  (operationOf(request.method, request.url)?.page ?? null) !== null;

const IN_PROGRESS = 'idempotency_request_in_progress';

/** A 409 because the first request with the same idempotency key still runs (read from a copy of the body). */
const isInProgress = async (response: Response): Promise<boolean> => {
  if (response.status !== 409) return false;
  try {
    const body: unknown = await response.clone().json();
    return typeof body === 'object' && body !== null && (body as { code?: unknown }).code === IN_PROGRESS;
  } catch {
    return false;
  }
};

/**
 * One attempt under the timeout. The attempt's request carries a signal that the caller's own signal and the
 * timer both abort, and the attempt also races that signal: it ends on time even when the `fetch` underneath
 * misses the abort (a test double, or a signal lost on its way through nested `Request` objects). The timer
 * stops once the answer's headers are in; the caller's signal still aborts reading the body.
 */
const attemptWithin = async (
  fetchImpl: FetchLike,
  request: Request,
  timeoutMs: number,
  attempt: number,
): Promise<Response> => {
  if (!(timeoutMs > 0 && Number.isFinite(timeoutMs))) return fetchImpl(request);
  const timer = new AbortController();
  const signal = AbortSignal.any([request.signal, timer.signal]);
  let stop = (): void => {};
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = () => reject(signal.reason);
  });
  signal.addEventListener('abort', stop, { once: true });
  const handle = setTimeout(
    () => timer.abort(new RequestTimeoutError(request, timeoutMs, attempt)),
    timeoutMs,
  );
  const answer = fetchImpl(new Request(request, { signal }));
  // An answer that comes after the timeout is dropped: free its connection.
  answer.then(
    (late) => (timer.signal.aborted ? late.body?.cancel().catch(() => {}) : undefined),
    () => {},
  );
  try {
    return await Promise.race([answer, stopped]);
  } finally {
    clearTimeout(handle);
    signal.removeEventListener('abort', stop);
  }
};

/** Wraps `fetch` with idempotency keys, a timeout per attempt and retries (see the module comment). */
export const retryingFetch = (
  fetchImpl: FetchLike,
  options: RetryOptions = {},
  timeoutMs: number = DEFAULT_TIMEOUT_MS,
): FetchLike => {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 3));
  const baseDelayMs = options.baseDelayMs ?? 200;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const backoff = (attempt: number): number =>
    Math.floor(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));

  return async (original) => {
    const request = withIdempotencyKey(original);
    const repeatable = options.retryUnsafe === true || isRepeatable(request);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts;
      let response: Response;
      try {
        response = await attemptWithin(fetchImpl, last ? request : request.clone(), timeoutMs, attempt);
      } catch (error) {
        if (last || !repeatable || request.signal.aborted) throw error;
        await sleep(backoff(attempt));
        continue;
      }
      if (last) return response;
      const retryable =
        response.status === 429 || (response.status >= 500 && repeatable) || (await isInProgress(response));
      if (!retryable) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(asked ?? backoff(attempt));
    }
  };
};
