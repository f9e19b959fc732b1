import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { USAGE_MONTH_SORT_KEY_PREFIX } from '../../functions/shared/data/keys';
import { DELETING_STATUS, ITEM_ENTITY, TYPE_ENTITY } from '../../functions/shared/types/dynadata-types';
import { EVENT_ENTITY } from '../../functions/shared/types/events';
import { SETTLED_JOB_ENTITIES } from '../../functions/shared/types/job-entities';
import { WEBHOOK_DELIVERY_MAX_RECEIVES } from '../../functions/shared/types/queues';
import { type DataResources, WORKER_ACCESS } from '../access';
import { AppFunction } from './app-function';
import { workQueue } from './work-queue';

/**
 * The delivery worker's timeout: a batch of 10 messages of one group is tried one after another, each
 * attempt at most 10 s (the groups of a batch run at once), with room.
 */
const WORKER_TIMEOUT = Duration.seconds(120);
/**
 * Longer than the worker's timeout: a message whose handling failed (the worker stopped) comes back after it,
 * its group waiting meanwhile. A delivery to retry sets its own visibility (the retry's wait).
 */
const VISIBILITY_TIMEOUT = Duration.seconds(360);

/**
 * Events to webhooks: the table's stream → the dispatcher (`functions/workers/event-dispatcher`), which
 * creates one delivery per subscribed endpoint and sends its message to the `webhook-delivery` FIFO queue,
 * whose event source feeds the delivery worker (`functions/workers/webhook-delivery`). Each holds exactly
 * its calls (`WORKER_ACCESS.eventDispatcher`, `WORKER_ACCESS.webhookDelivery`); the event sources add the
 * stream read actions to the dispatcher's role and the queue's receive actions to the worker's.
 *
 * SQS rather than Step Functions Standard drives delivery (`docs/decisions/0013-webhook-delivery-queue.md`),
 * and a FIFO queue keeps the order (`docs/decisions/0060-webhook-order-by-fifo-groups.md`): a message group
 * per endpoint and resource, in high-throughput mode (de-duplication and throughput per group), so SQS
 * hands out a group's next delivery only once the one before it is deleted; a delivery to retry stays at
 * its group's head with its visibility set to the backoff. A message whose handling keeps failing moves to
 * the (FIFO) dead-letter queue after `WEBHOOK_DELIVERY_MAX_RECEIVES` receives (alarmed by the observability
 * stack); its group goes on, and a redrive (or a redelivery) sends the delivery again.
 *
 * The event source filters on the records the dispatcher acts on (new events; changed usage months; Dynadata
 * item writes and jobs' final moves; a type being deleted: five filters, the default quota of an event source), so
 * other writes of the table invoke nothing; records of a failed invocation are retried from the failed
 * one (partial batch responses), split in halves on error.
 */
export class WebhookEvents extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: AppFunction;
  readonly dispatcher: AppFunction;

  constructor(scope: Construct, id: string, props: { data: DataResources }) {
    super(scope, id);
    const { data } = props;
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workQueue(this, {
      visibilityTimeout: VISIBILITY_TIMEOUT,
      maxReceiveCount: WEBHOOK_DELIVERY_MAX_RECEIVES,
      fifo: true,
    }));
    const queues = { ...data.queues, 'webhook-delivery': this.queue };
    this.worker = new AppFunction(this, 'Worker', {
      entry: 'functions/workers/webhook-delivery/index.ts',
      description: 'Public API v1, event delivery to webhook endpoints',
      access: WORKER_ACCESS.webhookDelivery,
      data: { ...data, queues },
      timeout: WORKER_TIMEOUT,
    });
    this.worker.addEventSource(
      new SqsEventSource(this.queue, {
        // No batching window: FIFO queues take none (a batch is what one receive hands out).
        batchSize: 10,
        reportBatchItemFailures: true,
      }),
    );

    this.dispatcher = new AppFunction(this, 'Dispatcher', {
      entry: 'functions/workers/event-dispatcher/index.ts',
      description: 'Public API v1, event dispatcher (table stream to webhook deliveries)',
      access: WORKER_ACCESS.eventDispatcher,
      data: { ...data, queues },
      timeout: Duration.seconds(60),
    });
    this.dispatcher.addEventSource(
      new DynamoEventSource(data.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 1000,
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(EVENT_ENTITY) } } },
          }),
          // A usage month's item or shard, from its first write (a month's first count can pass a threshold).
          FilterCriteria.filter({
            eventName: FilterRule.or('INSERT', 'MODIFY'),
            dynamodb: { Keys: { sk: { S: FilterRule.beginsWith(USAGE_MONTH_SORT_KEY_PREFIX) } } },
          }),
          // A Dynadata item written (created, replaced; deleted: its old image) and marked `_streamed`: its change
          // event, raised from the stream (`dynadata/change-stream.ts`). `messages`' items, never marked, and
          // writes of the version before the mark invoke nothing. A job item marked `_streamed` (from its final
          // move until its retry): the move settled from the stream (`jobs/settle-stream.ts`, decision 0065).
          FilterCriteria.filter({
            eventName: FilterRule.or('INSERT', 'MODIFY'),
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.or(ITEM_ENTITY, ...SETTLED_JOB_ENTITIES) },
                _streamed: { BOOL: [true] },
              },
            },
          }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('REMOVE'),
            dynamodb: {
              OldImage: { entity: { S: FilterRule.isEqual(ITEM_ENTITY) }, _streamed: { BOOL: [true] } },
            },
          }),
          // A Dynadata type being deleted: each turn of its background deletion (`type-sweep.ts`).
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('MODIFY'),
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.isEqual(TYPE_ENTITY) },
                status: { S: FilterRule.isEqual(DELETING_STATUS) },
              },
            },
          }),
        ],
      }),
    );
    const role = this.dispatcher.role;
    if (!role) throw new Error('the event dispatcher has no role');
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams (granted with the stream read actions by the event source) supports no ' +
        'resource-level permissions; the stream read actions are on exactly the table stream.',
    });
  }
}
