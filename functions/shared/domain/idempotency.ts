import { createHash } from 'node:crypto';
import { canonical } from '../canonical-json';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../data/idempotency';
import { AppError, ValidationError } from '../errors';
import type { RouteResult } from '../http/router';

/**
 * `Idempotency-Key` for create, send_message and executeFunction (the convention of Stripe and the IETF
 * draft): the first request with a key runs and its successful response is kept for 24 hours; a replay with
 * the same key and the same request returns that response with `Idempotent-Replayed: true`; the same key
 * with a different request (method, path or body) → 422 `idempotency_key_reused`; a replay while the first
 * is still running → 409 `idempotency_request_in_progress`. A request that fails frees its key. Keys are
 * 1–255 printable ASCII characters, scoped to the company.
 */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify([method, path, canonical(body ?? null)]))
    .digest('base64url');

export const withIdempotency = async (
  companyId: string,
  headers: Record<string, string>,
  request: { method: string; path: string; body: unknown },
  run: () => Promise<RouteResult & { status: number }>,
  now = new Date(),
): Promise<RouteResult> => {
  const key = headers['idempotency-key'];
  if (key === undefined) return run();
  if (!KEY_PATTERN.test(key)) {
    throw new ValidationError([
      { pointer: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
  const scope = `${request.method} ${request.path}`;
  const hash = requestFingerprint(request.method, request.path, request.body);
  const existing = await claimIdempotencyKey(companyId, scope, key, hash, now);
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
  let result: RouteResult & { status: number };
  try {
    result = await run();
  } catch (error) {
    await releaseIdempotencyKey(companyId, scope, key);
    throw error;
  }
  await completeIdempotencyKey(companyId, scope, key, { status: result.status, body: result.body });
  return result;
};
