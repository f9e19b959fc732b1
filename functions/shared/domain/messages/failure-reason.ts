/**
 * The reason a failed message records in its `error` field, from the error the `message-delivery` state
 * machine caught (`{Error, Cause}`). On AWS a Lambda task's `Cause` is the JSON the runtime reports
 * (`{errorType, errorMessage, trace}`); the local interpreter passes the message itself. Only the errors the
 * delivery raises on purpose carry a reason written for the company (`webhook answered 400`, `webhook host
 * resolves to a refused address`, ...); anything else is named by its type alone, so no internal detail
 * (addresses, stack traces) reaches the tenant.
 */
const DELIVERY_ERRORS = new Set(['WebhookRejectedError', 'WebhookRetryableError', 'NoDeliveryChannelError']);

/** Recorded when the delivery could not even be started (send_message answers the error too). */
export const DELIVERY_START_FAILED = 'delivery_start_failed';
const MAX_REASON_LENGTH = 300;

const causeMessage = (cause: string | undefined): string | undefined => {
  if (!cause) return undefined;
  try {
    const parsed: unknown = JSON.parse(cause);
    if (typeof parsed === 'object' && parsed !== null && 'errorMessage' in parsed) {
      const message = (parsed as { errorMessage: unknown }).errorMessage;
      return typeof message === 'string' ? message : undefined;
    }
  } catch {
    // A plain message (the local interpreter's form).
  }
  return cause;
};

export const deliveryFailureReason = (error: { Error?: string; Cause?: string } | undefined): string => {
  const name = error?.Error;
  if (!name) return 'delivery failed';
  if (name === 'States.Timeout') return 'delivery timed out';
  if (name === DELIVERY_START_FAILED) return DELIVERY_START_FAILED;
  const message = DELIVERY_ERRORS.has(name) ? causeMessage(error.Cause) : undefined;
  const reason = message ?? `delivery failed (${name})`;
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason;
};
