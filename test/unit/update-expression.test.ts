import { describe, expect, it } from 'vitest';
import { applyChange, ifAbsent, updateParams } from '../../functions/shared/data/update-expression';

interface Lane {
  entity: string;
  pending: number;
  owner?: string;
  leaseUntil?: string;
  firstAttemptAt?: string;
  gsi1pk?: string;
}

describe('updateParams', () => {
  it('aliases every attribute, reserved words included, with placeholders of its own', () => {
    expect(
      updateParams<{ status: string; size: number; ttl: number; error: string }>({
        set: { status: 'done', size: 3 },
        remove: ['ttl', 'error'],
      }),
    ).toEqual({
      UpdateExpression: 'SET #status = :set0, #size = :set1 REMOVE #ttl, #error',
      ExpressionAttributeNames: { '#status': 'status', '#size': 'size', '#ttl': 'ttl', '#error': 'error' },
      ExpressionAttributeValues: { ':set0': 'done', ':set1': 3 },
    });
  });

  it('writes if_not_exists and ADD, skips undefined values and keeps falsy ones', () => {
    expect(
      updateParams<Lane & { a?: number; b: number; c: boolean; d: null }>({
        set: { a: undefined, b: 0, c: false, d: null, firstAttemptAt: ifAbsent('now') },
        add: { pending: -1 },
      }),
    ).toEqual({
      UpdateExpression:
        'SET #b = :set0, #c = :set1, #d = :set2, #firstAttemptAt = if_not_exists(#firstAttemptAt, :set3) ' +
        'ADD #pending :add0',
      ExpressionAttributeNames: {
        '#b': 'b',
        '#c': 'c',
        '#d': 'd',
        '#firstAttemptAt': 'firstAttemptAt',
        '#pending': 'pending',
      },
      ExpressionAttributeValues: { ':set0': 0, ':set1': false, ':set2': null, ':set3': 'now', ':add0': -1 },
    });
  });

  it('joins the condition, its names and values, and refuses a name the condition gives another attribute', () => {
    expect(
      updateParams<Lane>(
        { set: { owner: 'w1' }, remove: ['gsi1pk'] },
        { expression: '#owner = :from', names: { '#owner': 'owner' }, values: { ':from': 'w0' } },
      ),
    ).toEqual({
      UpdateExpression: 'SET #owner = :set0 REMOVE #gsi1pk',
      ConditionExpression: '#owner = :from',
      ExpressionAttributeNames: { '#owner': 'owner', '#gsi1pk': 'gsi1pk' },
      ExpressionAttributeValues: { ':from': 'w0', ':set0': 'w1' },
    });
    expect(() =>
      updateParams<Lane>(
        { set: { owner: 'w1' } },
        { expression: '#owner = :x', names: { '#owner': 'lease' } },
      ),
    ).toThrow(/another attribute/);
    expect(() => updateParams<Lane>({ set: { owner: undefined } })).toThrow(/changes something/);
  });

  it('does not compile a field the item does not have', () => {
    // @ts-expect-error `pendng` is not a field of a lane
    updateParams<Lane>({ add: { pendng: 1 } });
    // @ts-expect-error a lane's `pending` is a number
    updateParams<Lane>({ set: { pending: 'one' } });
    // @ts-expect-error `owners` is not a field of a lane
    updateParams<Lane>({ remove: ['owners'] });
  });
});

describe('applyChange', () => {
  it('gives the record as the write leaves it, without touching the original', () => {
    const record = { status: 'failed', attempt: 1, error: { code: 'x' }, leaseUntil: 'then', count: 2 };
    expect(
      applyChange(record, {
        set: {
          status: 'pending',
          attempt: 2,
          gone: undefined,
          leaseUntil: ifAbsent('later'),
          since: ifAbsent('t'),
        },
        add: { count: 3 },
        remove: ['error'],
      }),
    ).toEqual({ status: 'pending', attempt: 2, leaseUntil: 'then', since: 't', count: 5 });
    expect(record).toEqual({
      status: 'failed',
      attempt: 1,
      error: { code: 'x' },
      leaseUntil: 'then',
      count: 2,
    });
  });
});
