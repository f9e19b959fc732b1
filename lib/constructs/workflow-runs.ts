import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WORKFLOW_RUN_MAX_RECEIVES } from '../../functions/shared/types/queues';
import { type DataResources, WORKFLOW_STEP_ACCESS } from '../access';
import { AppFunction } from './app-function';
import { LAZY_MODULES } from './route-group';
import { workQueue } from './work-queue';

/** The worker's timeout: a message's work budget (30 s) plus one step's bound (at most 15 s), with room. */
const WORKER_TIMEOUT = Duration.seconds(90);
/** How long a started step is its message's (`WORKFLOW_RUN_LEASE_SECONDS`): longer than a worker run. */
const LEASE_SECONDS = 120;
/**
 * Longer than the work budget plus the lease: a message whose handling failed comes back once the lease of
 * the last step it started has ended, and takes over.
 */
const VISIBILITY_TIMEOUT = Duration.seconds(180);

/**
 * Async workflow runs: the `workflow-run` queue (SQS-managed encryption, TLS only, a dead-letter queue after
 * `WORKFLOW_RUN_MAX_RECEIVES` receives, alarmed by the observability stack) and its worker
 * (`functions/workers/workflow-run`), fed by the queue's event source in batches with partial batch
 * responses. A message is a turn of a run (`functions/shared/domain/workflows/engine.ts`): the worker claims
 * each step on the run item before it runs it, runs steps for up to 30 s, and sends the message of the
 * next turn (delayed by a retry's wait: at most 900 s, SQS's longest delay; a message that arrives early sends
 * itself on). The
 * queue replaced a Step Functions Standard machine: a few SQS requests a run instead of two state
 * transitions a step (`docs/decisions/*-workflow-run-queue.md`).
 *
 * The worker runs the same actions as a sync run in the workflows route group, so it holds their calls
 * (`WORKFLOW_STEP_ACCESS`: the engine's and every action's, down to the table partitions, tenant objects,
 * secrets, Polly and the job machines the actions start) and `sqs:SendMessage` on its own queue.
 */
export class WorkflowRuns extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: AppFunction;

  constructor(scope: Construct, id: string, props: { data: DataResources }) {
    super(scope, id);
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workQueue(this, {
      visibilityTimeout: VISIBILITY_TIMEOUT,
      maxReceiveCount: WORKFLOW_RUN_MAX_RECEIVES,
    }));
    this.worker = new AppFunction(this, 'Worker', {
      entry: 'functions/workers/workflow-run/index.ts',
      description: 'Public API v1, workflow run step worker',
      access: WORKFLOW_STEP_ACCESS,
      data: { ...props.data, queues: { ...props.data.queues, 'workflow-run': this.queue } },
      environment: { WORKFLOW_RUN_LEASE_SECONDS: String(LEASE_SECONDS) },
      timeout: WORKER_TIMEOUT,
      // What the workflows route group loads on first use, outside the bundle: the spoken-text action's token
      // encoding and markdown parser, and ajv for the actions that validate Dynadata items.
      lazyModules: LAZY_MODULES.workflows,
    });
    this.worker.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(0),
        reportBatchItemFailures: true,
      }),
    );
  }
}
