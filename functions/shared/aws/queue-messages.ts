import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from './queues';

/**
 * Reading a queue by its URL, for the operator CLI's redrives (no function receives this way: a function's
 * queue feeds it through an event source).
 */
export interface ReceivedMessage {
  id: string;
  body: string;
  receiptHandle: string;
}

/**
 * Up to `max` (at most 10) messages of the queue, each hidden from other receivers for `visibilitySeconds`;
 * waits up to 2 s for one (a long poll asks every SQS server, so an empty answer means an empty queue).
 */
export const receiveMessages = async (
  queueUrl: string,
  max: number,
  visibilitySeconds: number,
): Promise<ReceivedMessage[]> => {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: Math.max(1, Math.min(10, max)),
      VisibilityTimeout: visibilitySeconds,
      WaitTimeSeconds: 2,
    }),
  );
  return Messages.map((m) => ({
    id: m.MessageId ?? '',
    body: m.Body ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
  }));
};

export const deleteMessage = async (queueUrl: string, receiptHandle: string): Promise<void> => {
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
};
