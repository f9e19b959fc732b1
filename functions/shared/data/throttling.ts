/**
 * DynamoDB refusing a write for want of capacity: a throttled request (`ProvisionedThroughputExceededException`,
 * `ThrottlingException`, `RequestLimitExceeded`) or a transaction cancelled because one of its items was
 * throttled. The SDK retries these itself; one that still fails reaches the caller.
 */
const THROTTLED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);
const THROTTLED_REASONS = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

export const isThrottled = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (THROTTLED.has(error.name)) return true;
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.some((reason) => THROTTLED_REASONS.has(reason.Code ?? ''));
};

/** A usage meter write DynamoDB throttled: the request is answered 503 `service_unavailable`, to be retried. */
export class MeterThrottledError extends Error {
  constructor(cause: unknown) {
    super('The usage meter write was throttled', { cause });
    this.name = 'MeterThrottledError';
  }
}
