import { RETRY_CLASSES, type RetryClass, type StepRetry } from '../../types/workflows';

/**
 * A step's `retry`: `{ "maxAttempts": 1..10, "backoffSeconds": 0..300, "on": [...] }`. An attempt is tried
 * again while attempts are left and its result is of a class in `on` (default `http_5xx`, `timeout`,
 * `network`): `http_5xx` / `http_4xx` / `http_429` an HTTP action answered with that status (a 429 is also
 * `http_4xx`), whether the step accepts it (`expectStatus`) or fails with `http_status`; `timeout` the step's time
 * bound or the HTTP action's own passed; `network` the HTTP action reached no answer; `error` any failure
 * but an input, scope or target refusal (those fail the same way every time). The wait before attempt n+1
 * is `backoffSeconds × 2^(n-1)`, at most `MAX_WAIT_SECONDS`, jittered to between half and all of it.
 * The last attempt's result is the step's: a 5xx answer after the last attempt is the step's output.
 */
export const MAX_ATTEMPTS = 10;
export const MAX_BACKOFF_SECONDS = 300;
export const MAX_WAIT_SECONDS = 900;
export const DEFAULT_RETRY_ON: readonly RetryClass[] = ['http_5xx', 'timeout', 'network'];
const NEVER_RETRIED = new Set([
  'validation_failed',
  'insufficient_scope',
  'http_target_refused',
  'invalid_header',
]);

const RETRY_KEYS = new Set(['maxAttempts', 'backoffSeconds', 'on']);

const isInteger = (v: unknown, min: number, max: number): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

export const retryProblems = (
  retry: unknown,
  pointer: string,
  add: (pointer: string, message: string) => void,
): void => {
  if (typeof retry !== 'object' || retry === null || Array.isArray(retry)) {
    add(pointer, 'must be an object');
    return;
  }
  const r = retry as Record<string, unknown>;
  for (const key of Object.keys(r))
    if (!RETRY_KEYS.has(key))
      add(`${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, 'is not a field of retry');
  if (!isInteger(r.maxAttempts, 1, MAX_ATTEMPTS))
    add(`${pointer}/maxAttempts`, `must be an integer from 1 to ${MAX_ATTEMPTS}`);
  if (r.backoffSeconds !== undefined && !isInteger(r.backoffSeconds, 0, MAX_BACKOFF_SECONDS))
    add(`${pointer}/backoffSeconds`, `must be an integer from 0 to ${MAX_BACKOFF_SECONDS}`);
  if (r.on === undefined) return;
  if (!Array.isArray(r.on) || r.on.length < 1 || r.on.length > RETRY_CLASSES.length) {
    add(`${pointer}/on`, `must be a list of ${RETRY_CLASSES.join(', ')}`);
    return;
  }
  r.on.forEach((c, i) => {
    if (!(RETRY_CLASSES as readonly unknown[]).includes(c))
      add(`${pointer}/on/${i}`, `must be one of ${RETRY_CLASSES.join(', ')}`);
  });
};

/** The classes of an HTTP answer's status: `http_5xx`, `http_429` (also `http_4xx`), `http_4xx`. */
const statusClasses = (status: number): RetryClass[] => {
  if (status >= 500 && status <= 599) return ['http_5xx'];
  if (status === 429) return ['http_429', 'http_4xx'];
  return status >= 400 && status <= 499 ? ['http_4xx'] : [];
};

/** What an attempt's result is, for `on`. */
export const retryClassesOf = (result: {
  status: 'succeeded' | 'failed';
  code?: string | undefined;
  reason?: string | undefined;
  httpStatus?: number | undefined;
}): RetryClass[] => {
  if (result.status === 'succeeded')
    return result.httpStatus === undefined ? [] : statusClasses(result.httpStatus);
  if (NEVER_RETRIED.has(result.code ?? '')) return [];
  // An answer whose status the step does not accept (`http_status`).
  if (result.httpStatus !== undefined) return [...statusClasses(result.httpStatus), 'error'];
  if (result.code === 'step_timeout' || result.reason === 'timeout') return ['timeout', 'error'];
  if (result.reason === 'network') return ['network', 'error'];
  return ['error'];
};

export const shouldRetry = (retry: StepRetry, attemptsSoFar: number, classes: readonly RetryClass[]) =>
  attemptsSoFar < retry.maxAttempts && classes.some((c) => (retry.on ?? DEFAULT_RETRY_ON).includes(c));

/** The wait before the attempt after attempt `n` (1-based), jittered by `random` (0 ≤ random < 1). */
export const retryWaitMs = (retry: StepRetry, n: number, random: () => number = Math.random): number => {
  const full = Math.min((retry.backoffSeconds ?? 1) * 2 ** (n - 1), MAX_WAIT_SECONDS) * 1000;
  return Math.round(full / 2 + (random() * full) / 2);
};
