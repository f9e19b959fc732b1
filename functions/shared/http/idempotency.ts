import { createHash } from 'node:crypto';
import { canonical } from '../canonical-json';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../data/idempotency';
import { AppError, ValidationError } from '../errors';

/**
 * `Idempotency-Key` on the routes whose table entry says `idempotency: 'keyed'` (the convention of Stripe and the
 * IETF draft): the first request with a key runs and its successful response is kept for 24 hours; a replay
 * with the same key and the same request returns that response with `Idempotent-Replayed: true`; the same key
 * with a different request (path parameters or body) → 422 `idempotency_key_reused`; a replay while the first
 * is still running → 409 `idempotency_request_in_progress`. A request that fails frees its key. Keys are
 * 1–255 printable ASCII characters, scoped to the company and the operation.
 */
/** An `Idempotency-Key`: 1 to 255 printable ASCII characters (the MCP write tools' `idempotencyKey` too). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  companyId: string;
  operationId: string;
  params: unknown;
  body: unknown;
}

export interface IdempotentResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The body kept for a replay when `body` holds a secret shown once (see `RouteResult`). */
  durableBody?: unknown;
}

export const requestFingerprint = (request: Omit<IdempotentRequest, 'companyId'>): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        request.operationId,
        canonical(request.params ?? null),
        canonical(request.body ?? null),
      ]),
    )
    .digest('base64url');

/** Runs `run` under the request's `Idempotency-Key`, or directly when the request carries none. */
export const withIdempotency = async (
  request: IdempotentRequest,
  key: string | undefined,
  run: () => Promise<IdempotentResponse>,
  now = new Date(),
): Promise<IdempotentResponse> => {
  if (key === undefined) return run();
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ValidationError([
      { pointer: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
  const { companyId, operationId } = request;
  const hash = requestFingerprint(request);
  const existing = await claimIdempotencyKey(companyId, operationId, key, hash, now);
  if (existing) {
    if (existing.requestHash !== hash) {
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request in the last 24 hours.',
      );
    }
    if (existing.status !== 'done' || !existing.response) {
      throw new AppError(
        'idempotency_request_in_progress',
        'A request with this Idempotency-Key is still being processed; retry later.',
        { retryAfterSeconds: 1 },
      );
    }
    return {
      status: existing.response.status,
      body: existing.response.body,
      headers: { 'idempotent-replayed': 'true' },
    };
  }
  let result: IdempotentResponse;
  try {
    result = await run();
  } catch (error) {
    await releaseIdempotencyKey(companyId, operationId, key);
    throw error;
  }
  await completeIdempotencyKey(companyId, operationId, key, {
    status: result.status,
    body: result.durableBody === undefined ? result.body : result.durableBody,
  });
  return result;
};
