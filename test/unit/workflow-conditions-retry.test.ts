import { describe, expect, it } from 'vitest';
import {
  type Condition,
  conditionHolds,
  conditionProblems,
} from '../../functions/shared/domain/workflows/conditions';
import type { ReferenceScope } from '../../functions/shared/domain/workflows/references';
import { retryClassesOf, retryWaitMs, shouldRetry } from '../../functions/shared/domain/workflows/retry';
import { definitionProblems } from '../../functions/shared/domain/workflows/validate-definition';
import { registerWorkflowActions } from '../../functions/shared/operations/workflow-actions';

registerWorkflowActions();

const scope: ReferenceScope = {
  input: { tier: 'gold', tags: ['a', 'b'], n: 3, at: '2026-11-28T10:00:00Z', empty: [], note: '' },
  runId: 'wr_1',
  steps: {
    call: { status: 'succeeded', output: { status: 200, body: { ok: true, list: [1, { x: 2 }] } } },
    gone: { status: 'failed' },
    skipped: { status: 'skipped', output: null },
  },
};
const holds = (c: unknown) => conditionHolds(c as Condition, scope);

describe('step conditions', () => {
  it('compares referenced values with their types, deeply, and treats missing values as unequal', () => {
    expect(holds({ eq: ['{{ steps.call.output.status }}', 200] })).toBe(true);
    expect(holds({ eq: ['{{ steps.call.output.status }}', '200'] })).toBe(false);
    expect(holds({ eq: ['{{ steps.call.output.body.list }}', [1, { x: 2 }]] })).toBe(true);
    expect(holds({ ne: ['{{ steps.gone.output.x }}', null] })).toBe(true);
    expect(holds({ eq: ['{{ steps.skipped.output }}', null] })).toBe(true);
    expect(holds({ eq: ['tier {{ input.tier }}', 'tier gold'] })).toBe(true);
  });

  it('answers in, exists, and, or and not', () => {
    expect(holds({ in: ['{{ input.tier }}', ['gold', 'silver']] })).toBe(true);
    expect(holds({ in: ['c', '{{ input.tags }}'] })).toBe(false);
    expect(holds({ in: ['a', 'abc'] })).toBe(false);
    expect(holds({ exists: '{{ steps.call.output.body.ok }}' })).toBe(true);
    expect(holds({ exists: '{{ steps.skipped.output }}' })).toBe(false);
    expect(holds({ and: [{ exists: '{{ input.n }}' }, { not: { eq: ['{{ input.n }}', 4] } }] })).toBe(true);
    expect(holds({ or: [{ eq: [1, 2] }, { eq: ['{{ steps.gone.status }}', 'failed'] }] })).toBe(true);
  });

  it('orders numbers and ISO 8601 timestamps, and a missing operand makes a comparison false', () => {
    expect(holds({ gte: ['{{ input.n }}', 3] })).toBe(true);
    expect(holds({ gt: ['{{ input.n }}', 3] })).toBe(false);
    expect(holds({ lt: ['{{ steps.call.output.status }}', 300] })).toBe(true);
    expect(holds({ lte: ['{{ input.at }}', '2026-11-28T11:00:00+01:00'] })).toBe(true);
    expect(holds({ gt: ['{{ input.at }}', '2026-11-28'] })).toBe(true);
    expect(holds({ gt: ['{{ steps.gone.output.n }}', 1] })).toBe(false);
  });

  it('looks into strings and lists, and tells empty values', () => {
    expect(holds({ contains: ['{{ input.tags }}', 'b'] })).toBe(true);
    expect(holds({ contains: ['{{ input.tier }}', 'ol'] })).toBe(true);
    expect(holds({ contains: ['{{ steps.call.output.body.list }}', { x: 2 }] })).toBe(true);
    expect(holds({ startsWith: ['{{ input.tier }}', 'go'] })).toBe(true);
    expect(holds({ startsWith: ['{{ input.tier }}', 'ld'] })).toBe(false);
    for (const empty of ['{{ input.empty }}', '{{ input.note }}', '{{ steps.gone.output }}', {}])
      expect(holds({ isEmpty: empty }), JSON.stringify(empty)).toBe(true);
    expect(holds({ isEmpty: '{{ input.tags }}' })).toBe(false);
  });

  it('fails the step with condition_type_mismatch when operands cannot be compared', () => {
    for (const condition of [
      { gt: ['{{ input.tier }}', 3] },
      { lt: ['{{ input.at }}', 5] },
      { contains: ['{{ input.n }}', 3] },
      { contains: ['{{ input.tier }}', 3] },
      { startsWith: ['{{ input.tags }}', 'a'] },
    ])
      expect(() => holds(condition), JSON.stringify(condition)).toThrow(
        expect.objectContaining({ code: 'condition_type_mismatch' }),
      );
  });

  it('refuses on save the operands written out that no run could compare', () => {
    const problems: string[] = [];
    const add = (pointer: string) => problems.push(pointer);
    const none = () => undefined;
    conditionProblems({ gt: ['{{ input.n }}', 'soon'] }, '/a', add, none);
    conditionProblems({ gte: [1, '2026-11-28'] }, '/b', add, none);
    conditionProblems({ startsWith: ['{{ input.tier }}', 7] }, '/c', add, none);
    conditionProblems({ contains: [12, 1] }, '/d', add, none);
    conditionProblems(
      { or: [{ lt: ['{{ input.at }}', '2026-11-28T10:00:00Z'] }, { isEmpty: 1 }] },
      '/e',
      add,
      none,
    );
    expect(problems).toEqual(['/a/gt/1', '/b/gte', '/c/startsWith/1', '/d/contains/0']);
  });

  it('lists every malformed operator by pointer', () => {
    const problems: string[] = [];
    const add = (pointer: string) => problems.push(pointer);
    conditionProblems({ and: [{ eq: [1] }, { what: 1 }, { not: { or: [] } }] }, '/if', add, () => undefined);
    conditionProblems({ eq: [1, 2], ne: [1, 2] }, '/x', add, () => undefined);
    expect(problems).toEqual(['/if/and/0/eq', '/if/and/1', '/if/and/2/not/or', '/x']);
  });

  it('says each problem once, and checks references only where the condition is well formed', () => {
    const problems: string[] = [];
    const add = (pointer: string, message: string) => problems.push(`${pointer} ${message}`);
    const references = (value: unknown, pointer: string, found: (p: string, m: string) => void) => {
      const walk = (v: unknown, p: string): void => {
        if (typeof v === 'string') found(p, `refers to ${v}`);
        else if (typeof v === 'object' && v !== null)
          for (const [k, child] of Object.entries(v)) walk(child, `${p}/${k}`);
      };
      walk(value, pointer);
    };
    conditionProblems({ in: 'x' }, '/a', add, references);
    conditionProblems({ and: [{ eq: ['r1'] }, { exists: 'r2' }, { what: 'r3' }] }, '/b', add, references);
    expect(problems).toEqual([
      '/a/in must be a list of two operands',
      '/b/and/0/eq must be a list of two operands',
      '/b/and/2 must be an object with exactly one of eq, ne, in, exists, gt, gte, lt, lte, contains, startsWith, isEmpty, and, or, not',
      '/b/and/1/exists refers to r2',
    ]);
  });

  it('refuses a condition naming a later step where the definition is saved', async () => {
    const problems = await definitionProblems({
      id: 'w',
      name: 'W',
      steps: [
        { id: 'a', action: 'actions/speech/spoken-text', if: { exists: '{{ steps.b.output }}' } },
        { id: 'b', action: 'actions/speech/spoken-text', retry: { maxAttempts: 0, backoffSeconds: 301 } },
      ],
    });
    expect(problems.map((p) => p.pointer)).toEqual([
      '/steps/0/if/exists',
      '/steps/1/retry/maxAttempts',
      '/steps/1/retry/backoffSeconds',
    ]);
  });
});

describe('step retries', () => {
  it('classes results: 5xx, 4xx and 429 answers, timeouts, network failures, and never a refused input', () => {
    expect(retryClassesOf({ status: 'succeeded', httpStatus: 503 })).toEqual(['http_5xx']);
    expect(retryClassesOf({ status: 'succeeded', httpStatus: 429 })).toEqual(['http_429', 'http_4xx']);
    expect(retryClassesOf({ status: 'succeeded', httpStatus: 404 })).toEqual(['http_4xx']);
    expect(retryClassesOf({ status: 'succeeded', httpStatus: 200 })).toEqual([]);
    // The same answers when the step does not accept them (`http_status`): any failure is also `error`.
    expect(retryClassesOf({ status: 'failed', code: 'http_status', httpStatus: 503 })).toEqual([
      'http_5xx',
      'error',
    ]);
    expect(retryClassesOf({ status: 'failed', code: 'http_status', httpStatus: 404 })).toEqual([
      'http_4xx',
      'error',
    ]);
    expect(retryClassesOf({ status: 'failed', code: 'step_timeout' })).toEqual(['timeout', 'error']);
    expect(retryClassesOf({ status: 'failed', code: 'http_request_failed', reason: 'network' })).toEqual([
      'network',
      'error',
    ]);
    expect(retryClassesOf({ status: 'failed', code: 'validation_failed' })).toEqual([]);
  });

  it('retries while attempts are left and the class is listed (by default 5xx, timeouts and network)', () => {
    expect(shouldRetry({ maxAttempts: 3 }, 2, ['http_5xx'])).toBe(true);
    expect(shouldRetry({ maxAttempts: 3 }, 3, ['http_5xx'])).toBe(false);
    expect(shouldRetry({ maxAttempts: 3 }, 1, ['error'])).toBe(false);
    expect(shouldRetry({ maxAttempts: 3, on: ['error'] }, 1, ['timeout', 'error'])).toBe(true);
  });

  it('waits backoff × 2^(n-1), jittered between half and all of it, at most 900 s', () => {
    const retry = { maxAttempts: 10, backoffSeconds: 2 };
    expect(retryWaitMs(retry, 1, () => 0)).toBe(1000);
    expect(retryWaitMs(retry, 3, () => 0.999_999)).toBe(8000);
    expect(retryWaitMs({ maxAttempts: 10, backoffSeconds: 300 }, 9, () => 0.999_999)).toBe(900_000);
    expect(retryWaitMs({ maxAttempts: 2, backoffSeconds: 0 }, 1)).toBe(0);
  });
});
