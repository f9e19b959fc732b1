import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A parking queue for the failed asynchronous invocations of a function (its on-failure destination,
 * `lib/grants/failure-queue.ts`): SQS-managed encryption, TLS only, messages kept 14 days (SQS's longest),
 * the time an operator has to redrive them. No function consumes it, so it has no dead-letter queue of its own:
 * only an operator's redrive receives its messages, and a message the redrive cannot ship stays on it.
 */
export const failureQueue = (scope: Construct, id: string): Queue => {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'The on-failure destination of a function’s asynchronous invocations (a parking queue, which this ' +
      'check does not recognise as a dead-letter use): no function consumes it, only an operator’s redrive, ' +
      'which leaves a message it cannot ship on the queue; its messages are alarmed on and kept 14 days.',
  });
  return queue;
};
