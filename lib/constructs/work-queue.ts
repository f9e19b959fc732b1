import { Duration } from 'aws-cdk-lib';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A work queue and its dead-letter queue, in `scope` as `Queue` and `DeadLetters`: SQS-managed encryption,
 * TLS only, messages kept 4 days (14 in the dead-letter queue, the time an operator has to redrive them),
 * moved to the dead-letter queue after `maxReceiveCount` receives. With `fifo`, both are FIFO queues in
 * high-throughput mode (de-duplication and throughput per message group); the dead-letter queue of a FIFO
 * queue must be FIFO too.
 */
export const workQueue = (
  scope: Construct,
  props: { visibilityTimeout: Duration; maxReceiveCount: number; fifo?: boolean },
): { queue: Queue; deadLetterQueue: Queue } => {
  // A FIFO queue is a new resource (SQS cannot turn a queue FIFO): its ids differ from a standard one's.
  const ids = props.fifo
    ? { queue: 'FifoQueue', dead: 'FifoDeadLetters' }
    : { queue: 'Queue', dead: 'DeadLetters' };
  const fifo = props.fifo
    ? {
        fifo: true,
        deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
        fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      }
    : {};
  const deadLetterQueue = new Queue(scope, ids.dead, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    ...(props.fifo ? { fifo: true } : {}),
  });
  const queue = new Queue(scope, ids.queue, {
    ...fifo,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: props.visibilityTimeout,
    retentionPeriod: Duration.days(4),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
};
