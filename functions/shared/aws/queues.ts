import { ChangeMessageVisibilityBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { env } from '../env';
import { tracer } from '../observability/tracer';
import { MAX_QUEUE_DELAY_SECONDS, MAX_VISIBILITY_SECONDS, type QueueName } from '../types/queues';

/**
 * The SQS adapter: sends messages to the platform's queues. Queues are named by what they carry; their URLs
 * come from the environment, where only the queues a function was granted are set. Locally the endpoint
 * points at the local stack's queues (`functions/local/queues.ts`).
 */
const { region, queueEndpoint } = env();

/** The SQS client (exported for the cost bench, which counts its requests). */
export const sqs = tracer.captureAWSv3Client(
  new SQSClient({
    region,
    ...(queueEndpoint
      ? { endpoint: queueEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  }),
);

export const queueUrl = (queue: QueueName): string => {
  const url = env().queueUrls[queue];
  if (!url) throw new Error(`No queue URL for ${queue} in this function's environment`);
  return url;
};

/**
 * Sends `body` (as JSON) to `queue`, delivered no sooner than `delaySeconds` from now: rounded up to whole
 * seconds, at most SQS's 15 minutes (a caller that must wait longer sends again when the message arrives).
 */
export const sendToQueue = async (queue: QueueName, body: unknown, delaySeconds = 0): Promise<void> => {
  const delay = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl(queue),
      MessageBody: JSON.stringify(body),
      DelaySeconds: delay,
    }),
  );
};

/**
 * Sends `body` (as JSON) to the FIFO queue `queue`, in the message group `group` (its messages are handed
 * out in the order sent, one at a time), de-duplicated on `deduplicationId`: a repeat of the id in its group
 * within 5 minutes sends nothing.
 */
export const sendToFifoQueue = async (
  queue: QueueName,
  body: unknown,
  ids: { group: string; deduplicationId: string },
): Promise<void> => {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl(queue),
      MessageBody: JSON.stringify(body),
      MessageGroupId: ids.group,
      MessageDeduplicationId: ids.deduplicationId,
    }),
  );
};

/**
 * Hides received messages of `queue` for `seconds` from now (at most SQS's 12 hours), in one request of up to
 * 10 receipt handles: the way a worker makes a message come back after a wait of its choosing.
 */
export const hideMessages = async (
  queue: QueueName,
  receiptHandles: readonly string[],
  seconds: number,
): Promise<void> => {
  const visibility = Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.ceil(seconds)));
  for (let i = 0; i < receiptHandles.length; i += 10) {
    const { Failed = [] } = await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl(queue),
        Entries: receiptHandles.slice(i, i + 10).map((handle, n) => ({
          Id: String(i + n),
          ReceiptHandle: handle,
          VisibilityTimeout: visibility,
        })),
      }),
    );
    if (Failed.length > 0) throw new Error(`visibility not changed: ${Failed.map((f) => f.Code).join(', ')}`);
  }
};
