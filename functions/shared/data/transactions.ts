import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocument, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DOCUMENT_TRANSLATION, ddb, dynamodbClient } from './client';
import type { TransactItem } from './entity';

/**
 * Transactions on hot items. DynamoDB cancels a transaction that touches an item another transaction is
 * writing at the same moment (reason `TransactionConflict`) and the SDK does not retry that: a company's
 * usage totals, usage month and transcode queue items are written by every parallel upload and job. Every
 * transaction of a data module that touches such an item goes through `sendTransaction`.
 */
export interface CancellationReason {
  Code?: string;
  Item?: Record<string, Record<string, unknown>>;
}

/** The reasons of a cancelled transaction, or undefined when `error` is not a cancellation. */
export const cancellationReasons = (error: unknown): CancellationReason[] | undefined =>
  error instanceof Error && error.name === 'TransactionCanceledException'
    ? ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [])
    : undefined;

/** True when a transaction was cancelled only by conflicts with concurrent transactions. */
export const isConflictOnly = (error: unknown): boolean => {
  const reasons = cancellationReasons(error);
  return (
    !!reasons?.some((r) => r.Code === 'TransactionConflict') &&
    reasons.every((r) => r.Code === 'TransactionConflict' || r.Code === 'None' || r.Code === undefined)
  );
};

export const CONFLICT_RETRIES = 4;

/**
 * The same client as `ddb`, as the aggregated `DynamoDBDocument`, whose `put`, `update` and `delete` send the
 * single-item write of a one-action transaction. Only this module uses it: the bundle check
 * (`test/infra/sdk-actions.ts`) counts it as a transaction, needing the actions of the item kinds the
 * bundle's transactions build, which are exactly the writes it can send.
 */
const oneActionWrites = DynamoDBDocument.from(dynamodbClient, DOCUMENT_TRANSLATION);

/**
 * The single-item write a transaction of one action is sent as (decision 0052): DynamoDB bills a
 * transactional write at twice the units of the same plain write, and one conditional write is as atomic
 * on its own. Undefined for two or more actions, a lone `ConditionCheck` (it writes nothing) and a
 * transaction with an idempotency token.
 */
const singleWriteOf = (command: TransactWriteCommand): (() => Promise<unknown>) | undefined => {
  const { TransactItems: items = [], ClientRequestToken, ReturnItemCollectionMetrics } = command.input;
  const action = items.length === 1 ? items[0] : undefined;
  if (!action || ClientRequestToken || ReturnItemCollectionMetrics) return undefined;
  // Read by member, not destructured: the bundle check reads `{ Put: ... }` as a transaction item built.
  const put = action.Put;
  const update = action.Update;
  const remove = action.Delete;
  if (put) return () => oneActionWrites.put(put);
  if (update) return () => oneActionWrites.update(update);
  if (remove) return () => oneActionWrites.delete(remove);
  return undefined;
};

/**
 * A plain write's refusal as the one-action transaction would have been cancelled: a failed condition as
 * `ConditionalCheckFailed` (with the item as it was when the write asked for it,
 * `ReturnValuesOnConditionCheckFailure`), a write that met an ongoing transaction on its item as
 * `TransactionConflict`; anything else (throttling, validation) as it came.
 */
const asCancellation = (error: unknown): unknown => {
  if (!(error instanceof Error)) return error;
  const code =
    error.name === 'ConditionalCheckFailedException'
      ? 'ConditionalCheckFailed'
      : error.name === 'TransactionConflictException'
        ? 'TransactionConflict'
        : undefined;
  if (!code) return error;
  // The raw item (AttributeValues) the write found, as a cancellation reason carries it.
  const { Item, $metadata } = error as { Item?: Record<string, AttributeValue>; $metadata?: object };
  const cancelled = new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${code}]`,
    $metadata: $metadata ?? {},
    CancellationReasons: [{ Code: code, Message: error.message, ...(Item ? { Item } : {}) }],
  });
  return Object.assign(cancelled, { cause: error });
};

/** Sends a transaction once: one of a single write action as that write (`singleWriteOf`). */
const sendOnce = async (command: TransactWriteCommand): Promise<void> => {
  const single = singleWriteOf(command);
  if (!single) {
    await ddb.send(command);
    return;
  }
  try {
    await single();
  } catch (error) {
    throw asCancellation(error);
  }
};

/**
 * Sends a transaction, retrying (with exponential backoff and jitter) while it is cancelled only by
 * conflicts; any other cancellation (a failed condition) is thrown at once, as is the last conflict. A
 * transaction of one write action is sent as that single-item write and its refusal thrown as the
 * transaction's cancellation would have been (`asCancellation`), so callers read it the same way.
 */
export const sendTransaction = async (command: TransactWriteCommand): Promise<void> => {
  for (let attempt = 0; ; attempt++) {
    try {
      await sendOnce(command);
      return;
    } catch (error) {
      if (!isConflictOnly(error) || attempt >= CONFLICT_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * (0.5 + Math.random())));
    }
  }
};

/**
 * Sends the transaction `items` (through `sendTransaction`): true when written, false when it was cancelled
 * because the item at `index` failed its condition (nothing written); anything else is thrown.
 */
export const transactUnlessFailed = async (items: TransactItem[], index: number): Promise<boolean> => {
  try {
    await sendTransaction(new TransactWriteCommand({ TransactItems: items }));
    return true;
  } catch (error) {
    if (cancellationReasons(error)?.[index]?.Code === 'ConditionalCheckFailed') return false;
    throw error;
  }
};
