/**
 * The platform's SQS queues, named by what they carry. Pure: the CDK app and the local stack use these names
 * too.
 */
export const QUEUE_NAMES = ['webhook-delivery'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** The environment variable holding a queue's URL: `webhook-delivery` → `WEBHOOK_DELIVERY_QUEUE_URL`. */
export const queueUrlVariable = (queue: string): string =>
  `${queue.toUpperCase().replaceAll('-', '_')}_QUEUE_URL`;

/** The longest delay SQS gives one message (`DelaySeconds`): a longer wait is a chain of such hops. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
