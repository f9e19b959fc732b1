/**
 * The platform's SQS queues, named by what they carry. Pure: the CDK app and the local stack use these names
 * too.
 */
export const QUEUE_NAMES = ['webhook-delivery', 'workflow-run'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** The environment variable holding a queue's URL: `webhook-delivery` → `WEBHOOK_DELIVERY_QUEUE_URL`. */
export const queueUrlVariable = (queue: string): string =>
  `${queue.toUpperCase().replaceAll('-', '_')}_QUEUE_URL`;

/** The longest delay SQS gives one message (`DelaySeconds`): a longer wait is a chain of such hops. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/**
 * Receives of a `workflow-run` message whose handling keeps failing: the last one fails the run
 * (`workflow_run_failed`) before the message moves to the dead-letter queue.
 */
export const WORKFLOW_RUN_MAX_RECEIVES = 10;

/**
 * The work one `workflow-run` message does before it hands the run on to a message due at once: at most a
 * quarter of the step lease and 30 s (the engine starts no step after it).
 */
export const workflowRunWorkBudgetMs = (leaseSeconds: number) => Math.min(30_000, (leaseSeconds * 1000) / 4);
