import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ItemWriteConflictError,
  replaceItem,
  type StoredItem,
} from '../../functions/shared/data/dynadata-items';
import type { TransactItem } from '../../functions/shared/data/entity';
import {
  CONFLICT_RETRIES,
  cancellationReasons,
  isConflictOnly,
  sendTransaction,
  transactUnlessFailed,
} from '../../functions/shared/data/transactions';

/**
 * A transaction of one write action is sent as that single-item write (decision 0052), and its refusal is
 * thrown as the transaction's cancellation would have been. The client is stubbed: the errors are the shapes
 * DynamoDB answers a plain write with (`ConditionalCheckFailedException` carrying the old item when the write
 * asks for it, `TransactionConflictException` when an ongoing transaction holds the item).
 */
const TABLE = 'table';
const Key = { pk: 'CO#co_unit#DD#messages', sk: 'ITEM#1' };
const condition = {
  ConditionExpression: '#v = :v',
  ExpressionAttributeNames: { '#v': '_version' },
  ExpressionAttributeValues: { ':v': 1 },
  ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
};
const put: TransactItem = { Put: { TableName: TABLE, Item: { ...Key, _version: 2 }, ...condition } };
const update: TransactItem = {
  Update: {
    TableName: TABLE,
    Key,
    UpdateExpression: 'SET #s = :s',
    ...condition,
    ExpressionAttributeNames: { ...condition.ExpressionAttributeNames, '#s': 'status' },
    ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':s': 'sent' },
  },
};
const del: TransactItem = { Delete: { TableName: TABLE, Key, ...condition } };
const check: TransactItem = {
  ConditionCheck: { TableName: TABLE, Key, ConditionExpression: 'attribute_exists(pk)' },
};
const OLD_ITEM = { pk: { S: Key.pk }, sk: { S: Key.sk }, _version: { N: '3' } };

const failure = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(
    new Error(name === 'ConditionalCheckFailedException' ? 'The conditional request failed' : name),
    {
      name,
      $metadata: { httpStatusCode: 400 },
      ...extra,
    },
  );

/**
 * Stubs the document clients (`ddb`, and the one the one-action writes go through): each call answers the
 * next of `answers` (an error is thrown), then `{}`.
 */
const stub = (...answers: unknown[]) =>
  vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation((async () => {
    const answer = answers.shift();
    if (answer instanceof Error) throw answer;
    return answer ?? {};
  }) as never);

const sent = (send: ReturnType<typeof stub>, call = 0) => send.mock.calls[call]?.[0] as unknown;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a one-action transaction is sent as its single-item write', () => {
  it.each([
    ['Put', put, PutCommand],
    ['Update', update, UpdateCommand],
    ['Delete', del, DeleteCommand],
  ] as const)(
    '%s: the matching command with the same condition, names, values and return on failure',
    async (kind, action, Command) => {
      const send = stub();
      await sendTransaction(new TransactWriteCommand({ TransactItems: [action] }));
      expect(send).toHaveBeenCalledTimes(1);
      const command = sent(send) as InstanceType<typeof Command>;
      expect(command).toBeInstanceOf(Command);
      expect(command.input).toEqual((action as Record<string, unknown>)[kind]);
    },
  );

  it('keeps a lone ConditionCheck, and two or more actions, a transaction', async () => {
    const send = stub();
    await sendTransaction(new TransactWriteCommand({ TransactItems: [check] }));
    await sendTransaction(new TransactWriteCommand({ TransactItems: [put, check] }));
    await transactUnlessFailed([update, put], 0);
    expect(send.mock.calls.map(([command]) => command)).toEqual([
      expect.any(TransactWriteCommand),
      expect.any(TransactWriteCommand),
      expect.any(TransactWriteCommand),
    ]);
  });

  it('keeps a transaction with an idempotency token a transaction', async () => {
    const send = stub();
    await sendTransaction(new TransactWriteCommand({ TransactItems: [put], ClientRequestToken: 'token' }));
    expect(sent(send)).toBeInstanceOf(TransactWriteCommand);
  });
});

describe('a refused single-item write reads as the cancelled transaction', () => {
  it.each([
    ['Put', put],
    ['Update', update],
    ['Delete', del],
  ])(
    '%s: a failed condition is a ConditionalCheckFailed cancellation with the old item, not retried',
    async (_kind, action) => {
      const send = stub(failure('ConditionalCheckFailedException', { Item: OLD_ITEM }));
      const error = await sendTransaction(new TransactWriteCommand({ TransactItems: [action] })).catch(
        (e) => e,
      );
      expect(send).toHaveBeenCalledTimes(1);
      expect(error.name).toBe('TransactionCanceledException');
      expect(cancellationReasons(error)).toEqual([
        { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: OLD_ITEM },
      ]);
      expect(isConflictOnly(error)).toBe(false);
      expect(error.cause?.name).toBe('ConditionalCheckFailedException');
    },
  );

  it('answers false from transactUnlessFailed for a failed condition (index 0), without an item when none was asked', async () => {
    stub(failure('ConditionalCheckFailedException'));
    await expect(transactUnlessFailed([{ Put: { TableName: TABLE, Item: Key } }], 0)).resolves.toBe(false);
    vi.restoreAllMocks();
    const send = stub(failure('ConditionalCheckFailedException'));
    const error = await sendTransaction(new TransactWriteCommand({ TransactItems: [del] })).catch((e) => e);
    expect(cancellationReasons(error)?.[0]).not.toHaveProperty('Item');
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('retries a write that met an ongoing transaction, as a TransactionConflict cancellation', async () => {
    const send = stub(failure('TransactionConflictException'), failure('TransactionConflictException'));
    await expect(transactUnlessFailed([update], 0)).resolves.toBe(true);
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('throws the last conflict as a conflict-only cancellation when the retries run out', async () => {
    const send = stub(
      ...Array.from({ length: CONFLICT_RETRIES + 1 }, () => failure('TransactionConflictException')),
    );
    const error = await sendTransaction(new TransactWriteCommand({ TransactItems: [put] })).catch((e) => e);
    expect(isConflictOnly(error)).toBe(true);
    expect(cancellationReasons(error)).toEqual([expect.objectContaining({ Code: 'TransactionConflict' })]);
    expect(send).toHaveBeenCalledTimes(CONFLICT_RETRIES + 1);
  });

  it('throws any other failure (throttling, validation) as it came', async () => {
    const throttled = failure('ProvisionedThroughputExceededException');
    stub(throttled);
    await expect(sendTransaction(new TransactWriteCommand({ TransactItems: [put] }))).rejects.toBe(throttled);
  });

  it("maps a message's same-size status change (one action) refused on its version to the item conflict", async () => {
    const item = (version: number): StoredItem => ({
      _id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
      _version: version,
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:05.000Z',
      data: { status: 'sent' },
      size: 40,
    });
    const send = stub(failure('ConditionalCheckFailedException'));
    const error = await replaceItem('co_unit', 'messages', item(1), item(2), {}).catch((e) => e);
    expect(error).toBeInstanceOf(ItemWriteConflictError);
    expect(error.reason).toBe('item');
    expect(sent(send)).toBeInstanceOf(PutCommand);
  });
});

describe('the client of the one-action writes', () => {
  it('is used by transactions.ts alone (the bundle check counts it as a transaction)', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? files(join(dir, entry.name))
          : /\.ts$/.test(entry.name)
            ? [join(dir, entry.name)]
            : [],
      );
    const users = files('functions').filter((file) =>
      /import\s*\{[^}]*\bDynamoDBDocument\b[^}]*\}\s*from\s*'@aws-sdk\/lib-dynamodb'/.test(
        readFileSync(file, 'utf8'),
      ),
    );
    expect(users).toEqual([join('functions', 'shared', 'data', 'transactions.ts')]);
  });
});
