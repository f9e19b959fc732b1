import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from './client';
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
 * Sends a transaction, retrying (with exponential backoff and jitter) while it is cancelled only by
 * conflicts; any other cancellation (a failed condition) is thrown at once, as is the last conflict.
 */
export const sendTransaction = async (command: TransactWriteCommand): Promise<void> => {
  for (let attempt = 0; ; attempt++) {
    try {
      await ddb.send(command);
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
