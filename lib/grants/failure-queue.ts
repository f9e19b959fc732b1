import type { Duration } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IDestination } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { AppFunction } from '../constructs/app-function';

/**
 * An SQS on-failure destination whose function may only send to the queue: `sqs:SendMessage`, which is what
 * Lambda calls with the function's role (CDK's `SqsDestination` grants `sqs:GetQueueAttributes` and
 * `sqs:GetQueueUrl` too).
 */
const sendOnlyDestination = (queue: IQueue): IDestination => ({
  bind: (_scope, fn) => {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
    return { destination: queue.queueArn };
  },
});

/**
 * Sends the asynchronous invocations of `fn` that fail, once their retries or their maximum age run out, to
 * `queue` (Lambda's record of the invocation, with its event in `requestPayload`). The function must declare
 * it in its access (`failureQueue: true`, `lib/access.ts`).
 */
export const sendFailuresTo = (
  fn: AppFunction,
  queue: IQueue,
  options: { retryAttempts: number; maxEventAge: Duration },
): void => {
  if (!fn.access.failureQueue)
    throw new Error(`${fn.node.path} does not declare its failure queue in its access (failureQueue: true)`);
  fn.configureAsyncInvoke({ onFailure: sendOnlyDestination(queue), ...options });
};
