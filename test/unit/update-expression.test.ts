import { describe, expect, it } from 'vitest';
import { applyChange, updateExpression } from '../../functions/shared/data/update-expression';

describe('updateExpression', () => {
  it('aliases every set and removed attribute, reserved words included', () => {
    expect(updateExpression({ set: { status: 'done', size: 3 }, remove: ['ttl', 'error'] })).toEqual({
      expression: 'SET #status = :status, #size = :size REMOVE #ttl, #error',
      names: { '#status': 'status', '#size': 'size', '#ttl': 'ttl', '#error': 'error' },
      values: { ':status': 'done', ':size': 3 },
    });
  });

  it('skips undefined values and keeps falsy ones', () => {
    expect(updateExpression({ set: { a: undefined, b: 0, c: false, d: null } })).toEqual({
      expression: 'SET #b = :b, #c = :c, #d = :d',
      names: { '#b': 'b', '#c': 'c', '#d': 'd' },
      values: { ':b': 0, ':c': false, ':d': null },
    });
  });

  it('writes only the clause that has attributes', () => {
    expect(updateExpression({ set: {}, remove: ['leaseUntil'] }).expression).toBe('REMOVE #leaseUntil');
    expect(updateExpression({ set: { a: 1 } }).expression).toBe('SET #a = :a');
    expect(updateExpression({ set: {} }).expression).toBe('');
  });
});

describe('applyChange', () => {
  it('gives the record as the write leaves it, without touching the original', () => {
    const record = { status: 'failed', attempt: 1, error: { code: 'x' }, leaseUntil: 'then' };
    expect(
      applyChange(record, {
        set: { status: 'pending', attempt: 2, gone: undefined },
        remove: ['error', 'leaseUntil'],
      }),
    ).toEqual({ status: 'pending', attempt: 2 });
    expect(record).toEqual({ status: 'failed', attempt: 1, error: { code: 'x' }, leaseUntil: 'then' });
  });
});
