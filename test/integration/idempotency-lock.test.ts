import { describe, expect, it } from 'vitest';
import './support';

const { claimIdempotencyKey, completeIdempotencyKey, IDEMPOTENCY_LOCK_MS } = await import(
  '../../functions/shared/data/idempotency'
);

const unique = () => Math.random().toString(36).slice(2);

/** Claims against the stack's DynamoDB, with the clock passed in (no waiting). */
describe('idempotency key locks', () => {
  it('a key left in progress by a crashed request is taken over once its lock has passed', async () => {
    const companyId = `co_${unique()}`;
    const key = unique();
    const t0 = new Date('2026-03-01T10:00:00.000Z');
    expect(await claimIdempotencyKey(companyId, 'op', key, 'h1', t0)).toBeUndefined();
    // Still locked: the claim sees the request in progress.
    const during = await claimIdempotencyKey(companyId, 'op', key, 'h1', new Date(t0.getTime() + 10_000));
    expect(during?.status).toBe('in_progress');
    // The first request never completed nor released its key; past the lock a new claim owns it.
    const after = new Date(t0.getTime() + IDEMPOTENCY_LOCK_MS + 1);
    expect(await claimIdempotencyKey(companyId, 'op', key, 'h1', after)).toBeUndefined();
    const again = await claimIdempotencyKey(companyId, 'op', key, 'h1', new Date(after.getTime() + 1000));
    expect(again?.status).toBe('in_progress');
  });

  it('a completed key is never taken over within its 24 hours', async () => {
    const companyId = `co_${unique()}`;
    const key = unique();
    const t0 = new Date('2026-03-01T10:00:00.000Z');
    expect(await claimIdempotencyKey(companyId, 'op', key, 'h1', t0)).toBeUndefined();
    await completeIdempotencyKey(companyId, 'op', key, { status: 201, body: { ok: true } });
    const later = await claimIdempotencyKey(companyId, 'op', key, 'h1', new Date(t0.getTime() + 3600_000));
    expect(later).toMatchObject({ status: 'done', response: { status: 201, body: { ok: true } } });
  });
});
