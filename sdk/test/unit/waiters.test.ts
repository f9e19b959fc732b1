import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { WaitTimeoutError } from '../../src/waiters.js';
import { type Sent, type StubAnswer, stubClient } from './stub-client.js';

/**
 * The waiters with a stubbed `fetch` and fake timers: the backoff between reads, `Retry-After` (on an answer
 * and on a 429), every final state ending the wait with the resource, the timeout, a refusal thrown.
 */
const job = (status: string) => ({ job: { id: 'tc_1', status } });

/** Answers `answers` in turn (the last one again and again), noting when each read came. */
const sequence = (answers: StubAnswer[]) => {
  const at: number[] = [];
  const start = Date.now();
  const answer = (_: Sent): StubAnswer => {
    at.push(Date.now() - start);
    return answers[Math.min(at.length - 1, answers.length - 1)] ?? {};
  };
  return { at, answer };
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the waiters', () => {
  it('read until a final state, backing off 1.5 times each time', async () => {
    const { at, answer } = sequence([
      { body: job('pending') },
      { body: job('probing') },
      { body: job('transcoding') },
      { body: job('done') },
    ]);
    const { client, sent } = stubClient(answer);
    const waiting = client.transcodes.waitUntilDone('tc_1', { initialDelayMs: 1_000 });
    await vi.runAllTimersAsync();
    const done = await waiting;
    expect(done.status).toBe('done');
    expectTypeOf(done.status).toEqualTypeOf<'done' | 'failed' | 'canceled'>();
    expect(at).toEqual([0, 1_000, 2_500, 4_750]);
    expect(sent.every((s) => s.method === 'GET' && s.path === '/v1/transcodes/tc_1')).toBe(true);
  });

  it('end on every final state the document declares, a failure or a cancellation too', async () => {
    for (const status of ['failed', 'canceled']) {
      const { client } = stubClient(() => ({ body: job(status) }));
      await expect(client.speech.jobs.waitUntilDone('sj_1')).resolves.toMatchObject({ status });
    }
    const { client } = stubClient(() => ({ body: { run: { runId: 'r1', status: 'partial' } } }));
    const run = await client.workflows.runs.waitUntilDone('wf_1', 'r1');
    expectTypeOf(run.status).toEqualTypeOf<'success' | 'partial' | 'failed' | 'canceled'>();
    expect(run.runId).toBe('r1');
    const transcription = stubClient(() => ({ body: job('failed') }));
    await expect(transcription.client.transcriptions.waitUntilDone('tr_1')).resolves.toMatchObject({
      status: 'failed',
    });
  });

  it('wait what Retry-After asks, on an answer and on a 429', async () => {
    const { at, answer } = sequence([
      { body: job('pending'), headers: { 'retry-after': '5' } },
      { status: 429, body: { code: 'rate_limited' }, headers: { 'retry-after': '3' } },
      { body: job('done') },
    ]);
    const { client } = stubClient(answer);
    const waiting = client.transcodes.waitUntilDone('tc_1');
    await vi.runAllTimersAsync();
    await expect(waiting).resolves.toMatchObject({ status: 'done' });
    expect(at).toEqual([0, 5_000, 8_000]);
  });

  it('throw a WaitTimeoutError with the last state read when timeoutMs elapses', async () => {
    const { at, answer } = sequence([{ body: job('transcoding') }]);
    const { client } = stubClient(answer);
    const waiting = client.transcodes
      .waitUntilDone('tc_1', { timeoutMs: 10_000, initialDelayMs: 2_000, maxDelayMs: 4_000 })
      .catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    const error = await waiting;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).last).toEqual({ id: 'tc_1', status: 'transcoding' });
    expect(at).toEqual([0, 2_000, 5_000, 9_000, 10_000]);
  });

  it('give up at once when Retry-After asks for a wait past the timeout', async () => {
    const { at, answer } = sequence([{ body: job('pending'), headers: { 'retry-after': '60' } }]);
    const { client } = stubClient(answer);
    const waiting = client.transcodes.waitUntilDone('tc_1', { timeoutMs: 30_000 }).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await waiting).toBeInstanceOf(WaitTimeoutError);
    expect(at).toEqual([0]);
  });

  it('throw any other refusal as its ApiError', async () => {
    const { client } = stubClient(() => ({ status: 404, body: { code: 'not_found' } }));
    const error = await client.transcodes.waitUntilDone('tc_x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('not_found');
  });
});
