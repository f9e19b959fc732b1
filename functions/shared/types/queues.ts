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

/** The longest a received message can be hidden (`ChangeMessageVisibility`): 12 hours. */
export const MAX_VISIBILITY_SECONDS = 43_200;

/**
 * Receives of a `webhook-delivery` message before it moves to the dead-letter queue. A delivery is tried at
 * most 61 times in its 27-hour window (retry delays of at least half of min(1 h, 30 s × 2^(n−1)): 15 s, 30 s,
 * …, 960 s, then 30 min each); a message waiting behind its group's head is received with it in a batch, so
 * it counts the head's attempts too, up to the endpoint's disabling after 72 h of failures (about 150
 * attempts), after which every delivery of the group ends at its next receive. 250 leaves room for both.
 */
export const WEBHOOK_DELIVERY_MAX_RECEIVES = 250;

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
