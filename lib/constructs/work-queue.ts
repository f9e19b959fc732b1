import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A work queue and its dead-letter queue, in `scope` as `Queue` and `DeadLetters`: SQS-managed encryption,
 * TLS only, messages kept 4 days (14 in the dead-letter queue, the time an operator has to redrive them),
 * moved to the dead-letter queue after `maxReceiveCount` receives.
 */
export const workQueue = (
  scope: Construct,
  props: { visibilityTimeout: Duration; maxReceiveCount: number },
): { queue: Queue; deadLetterQueue: Queue } => {
  const deadLetterQueue = new Queue(scope, 'DeadLetters', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  const queue = new Queue(scope, 'Queue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout: props.visibilityTimeout,
    retentionPeriod: Duration.days(4),
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
  });
  return { queue, deadLetterQueue };
};
