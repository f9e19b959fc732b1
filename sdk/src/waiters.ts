import { ApiError, isRecord } from './errors.js';
import type { WaitOptions } from './method-types.js';
import { retryAfterMs } from './retry.js';

/**
 * The waiters (`client.transcodes.waitUntilDone(id)`, `client.workflows.runs.waitUntilDone(id, runId)`): read
 * the resource until its `status` is one of the final states the document marks (`x-final-states`, carried
 * into the operation table at build time), and answer it, whichever final state it is (`done`, `failed`,
 * `canceled`, …). Between reads they wait `initialDelayMs`, then 1.5 times longer each time up to
 * `maxDelayMs`; a `Retry-After` on the answer, or on a 429 or 503 refusal, sets the next wait instead. When
 * `timeoutMs` has elapsed, or a `Retry-After` would pass it, they throw a `WaitTimeoutError` holding the
 * last state read. Any other refusal throws its `ApiError`.
 */

/** The waiter gave up: `timeoutMs` elapsed before the resource reached a final state. */
export class WaitTimeoutError extends Error {
  readonly timeoutMs: number;
  /** The resource as last read, not final (undefined when no read answered). */
  readonly last: unknown;

  constructor(timeoutMs: number, last: unknown) {
    const status = isRecord(last) && typeof last.status === 'string' ? ` (still ${last.status})` : '';
    super(`not done after ${timeoutMs} ms${status}`);
    this.name = 'WaitTimeoutError';
    this.timeoutMs = timeoutMs;
    this.last = last;
  }
}

const DEFAULTS = { timeoutMs: 600_000, initialDelayMs: 1_000, maxDelayMs: 15_000 };
const GROWTH = 1.5;

const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const waitAsked = (error: unknown): number | undefined =>
  error instanceof ApiError && (error.status === 429 || error.status === 503)
    ? retryAfterMs(error.headers?.get('retry-after') ?? null)
    : undefined;

/** Reads with `read` until the answer's `member` has a final `status`; answers that resource. */
export const pollUntilFinal = async (
  read: (signal: AbortSignal | undefined) => Promise<{ data: unknown; response: Response }>,
  member: string,
  final: readonly string[],
  options: WaitOptions = {},
): Promise<unknown> => {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxDelayMs = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const deadline = Date.now() + timeoutMs;
  let delay = Math.min(options.initialDelayMs ?? DEFAULTS.initialDelayMs, maxDelayMs);
  let last: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    let asked: number | undefined;
    try {
      const { data, response } = await read(options.signal);
      const resource = isRecord(data) ? data[member] : undefined;
      const status = isRecord(resource) ? resource.status : undefined;
      if (typeof status === 'string' && final.includes(status)) return resource;
      last = resource;
      asked = retryAfterMs(response.headers.get('retry-after'));
    } catch (error) {
      asked = waitAsked(error);
      if (asked === undefined) throw error;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0 || (asked !== undefined && asked > remaining)) {
      throw new WaitTimeoutError(timeoutMs, last);
    }
    await sleep(Math.min(asked ?? delay, remaining), options.signal);
    delay = Math.min(maxDelayMs, delay * GROWTH);
  }
};
