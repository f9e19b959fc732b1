import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  type AlarmProps,
  ComparisonOperator,
  type IMetric,
  MathExpression,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import {
  FAILED_WEBHOOK_ATTEMPTS,
  type JobType,
  METRIC,
} from '../../functions/shared/observability/metric-names';
import {
  businessMetric,
  deliveryMetrics,
  PERIOD,
  requestsOfCode,
  tableMetric,
} from './observability-metrics';

/**
 * The alarms, on the signals that mean users are hurt (never on tenant mistakes: 4xx answers are normal
 * traffic, shown on the dashboard only). The authorizer's Lambda `Errors` metric counts every refused
 * credential (a REQUEST authorizer refuses by throwing), so it is not alarmed on; its throttles and latency
 * are. Each alarm is created through `AddAlarm`, which the stack binds to its topic.
 */
export type AddAlarm = (id: string, metric: IMetric, props: Omit<AlarmProps, 'metric'>) => Alarm;

/** What the alarms watch. */
export interface Observed {
  rest: RestApi;
  authorizer: IFunction;
  /** Route group functions, by group. */
  groupFunctions: [string, IFunction][];
  /** Other functions whose errors are alarmed on (the log shipper). */
  workers: [string, IFunction][];
  table: ITable;
  machines: [string, StateMachine][];
  /** Queues that drive work, with the dead-letter queue of each. */
  queues: [string, { queue: IQueue; deadLetters: IQueue }][];
  /** The failure queues of functions invoked asynchronously (the log shipper's), by function. */
  failureQueues: [string, IQueue][];
}

/**
 * Job error codes that mean the platform failed the job (an unexpected error, an execution that did not
 * start, a media engine that hung). The other codes (`source_*`: the tenant's input) are only graphed.
 */
export const PLATFORM_JOB_FAILURE_CODES: Record<JobType, readonly string[]> = {
  transcode: ['internal', 'start_failed', 'timeout'],
  transcription: ['internal', 'start_failed', 'timeout'],
  speech_job: ['internal', 'start_failed', 'timeout'],
};

const AT_LEAST = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
const ABOVE = ComparisonOperator.GREATER_THAN_THRESHOLD;

/** The API's 5xx rate and latency. */
const apiAlarms = (alarm: AddAlarm, rest: RestApi) => {
  alarm(
    'Api5xxRate',
    new MathExpression({
      expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: rest.metricServerError({ period: PERIOD, statistic: 'Sum' }),
        requests: rest.metricCount({ period: PERIOD, statistic: 'Sum' }),
      },
      period: PERIOD,
      label: '5xx answers, % of requests',
    }),
    {
      alarmDescription:
        'More than 2% of API requests answered 5xx for 10 minutes (at least 20 requests per 5 minutes). ' +
        'Runbook: docs/operate.md#runbook: find a requestId of a 5xx in the access log, then its function log.',
      threshold: 2,
      evaluationPeriods: 2,
      comparisonOperator: ABOVE,
    },
  );
  alarm('ApiLatencyP99', rest.metricLatency({ period: PERIOD, statistic: 'p99' }), {
    alarmDescription: 'p99 latency of the API above 3 s for 15 minutes.',
    threshold: 3000,
    evaluationPeriods: 3,
    comparisonOperator: ABOVE,
  });
};

/** Unhandled errors and throttles of the functions, and the authorizer's latency. */
const functionAlarms = (alarm: AddAlarm, observed: Observed) => {
  for (const [name, fn] of [...observed.groupFunctions, ...observed.workers]) {
    alarm(`FunctionErrors-${name}`, fn.metricErrors({ period: PERIOD, statistic: 'Sum' }), {
      alarmDescription: `Function ${name} failed (unhandled errors) 5 or more times in 5 minutes.`,
      threshold: 5,
      evaluationPeriods: 1,
      comparisonOperator: AT_LEAST,
    });
  }
  for (const [name, fn] of [
    ['authorizer', observed.authorizer] as [string, IFunction],
    ...observed.groupFunctions,
  ]) {
    alarm(`FunctionThrottles-${name}`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }), {
      alarmDescription: `Function ${name} was throttled (account or reserved concurrency exhausted).`,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: AT_LEAST,
    });
  }
  alarm('AuthorizerLatencyP99', observed.authorizer.metricDuration({ period: PERIOD, statistic: 'p99' }), {
    alarmDescription: 'The authorizer takes over 1 s at p99: every authenticated request waits for it.',
    threshold: 1000,
    evaluationPeriods: 3,
    comparisonOperator: ABOVE,
  });
};

/** DynamoDB throttles and internal errors on the table. */
const tableAlarms = (alarm: AddAlarm, table: ITable) => {
  alarm('TableThrottles', tableMetric(table, 'ThrottledRequests'), {
    alarmDescription: 'DynamoDB throttled requests on the table.',
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: AT_LEAST,
  });
  alarm('TableSystemErrors', tableMetric(table, 'SystemErrors'), {
    alarmDescription: 'DynamoDB returned internal errors for the table.',
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: AT_LEAST,
  });
};

/** Executions that time out, and failed executions in numbers (a job failing on its input does not fail its execution). */
const stateMachineAlarms = (alarm: AddAlarm, machines: [string, StateMachine][]) => {
  for (const [name, machine] of machines) {
    alarm(`StateMachineTimedOut-${name}`, machine.metricTimedOut({ period: PERIOD, statistic: 'Sum' }), {
      alarmDescription: `Executions of ${name} timed out: a worker or media job hangs.`,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: AT_LEAST,
    });
    alarm(`StateMachineFailed-${name}`, machine.metricFailed({ period: PERIOD, statistic: 'Sum' }), {
      alarmDescription:
        `10 or more executions of ${name} failed in 5 minutes. A job that fails on its input ends in a ` +
        'recorded error, not a failed execution, so this means the platform is failing.',
      threshold: 10,
      evaluationPeriods: 1,
      comparisonOperator: AT_LEAST,
    });
  }
};

/**
 * A message in a dead-letter queue (its handling failed `maxReceiveCount` times: the work it carried waits
 * for a redrive), and a queue whose oldest message is older than a delay hop plus a few visibility timeouts
 * (the worker does not keep up, or keeps failing).
 */
const queueAlarms = (alarm: AddAlarm, queues: Observed['queues']) => {
  for (const [name, { queue, deadLetters }] of queues) {
    alarm(
      `QueueDeadLetters-${name}`,
      deadLetters.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      {
        alarmDescription:
          `Messages of the ${name} queue moved to its dead-letter queue: their handling kept failing. ` +
          'Runbook: docs/operate.md#runbook: the worker log has the error; redrive the messages once fixed.',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: AT_LEAST,
      },
    );
    alarm(
      `QueueOldestMessage-${name}`,
      queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
      {
        alarmDescription: `The oldest message of the ${name} queue waits for more than 30 minutes for 15 minutes.`,
        threshold: 1800,
        evaluationPeriods: 3,
        comparisonOperator: ABOVE,
      },
    );
  }
};

/**
 * A message on a function's failure queue: an asynchronous invocation failed through all its retries (or
 * waited too long) and was parked with its event instead of being dropped; it waits for a redrive.
 */
const failureQueueAlarms = (alarm: AddAlarm, failureQueues: Observed['failureQueues']) => {
  for (const [name, queue] of failureQueues) {
    alarm(
      `FailedInvocations-${name}`,
      queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      {
        alarmDescription:
          `Invocations of ${name} failed through their retries and were parked on its failure queue. ` +
          'Runbook: docs/operate.md#runbook: the function log has the error; once fixed, redrive the queue ' +
          `(admin ${name} redrive).`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: AT_LEAST,
      },
    );
  }
};

/** Alarms on business figures: internal errors of route handlers, webhook delivery failures, platform job failures. */
const businessAlarms = (alarm: AddAlarm) => {
  alarm('ApiInternalErrors', requestsOfCode('internal'), {
    alarmDescription:
      '5 or more requests answered 500 internal (an unexpected error in a route handler) in 5 minutes. ' +
      'Runbook: docs/operate.md#runbook: the dashboard\'s "Requests by route and status" names the route; its ' +
      'function log has the error with the requestId.',
    threshold: 5,
    evaluationPeriods: 1,
    comparisonOperator: AT_LEAST,
  });
  const deliveries = deliveryMetrics();
  const failedAttempts = FAILED_WEBHOOK_ATTEMPTS.join(' + ');
  alarm(
    'WebhookDeliveryFailureRate',
    new MathExpression({
      expression: `IF((delivered + ${failedAttempts}) >= 20, 100 * (${failedAttempts}) / (delivered + ${failedAttempts}), 0)`,
      usingMetrics: Object.fromEntries(
        ['delivered', ...FAILED_WEBHOOK_ATTEMPTS].map((outcome) => [
          outcome,
          deliveries[outcome as keyof typeof deliveries],
        ]),
      ),
      period: PERIOD,
      label: 'Webhook attempts without a 2xx answer, %',
    }),
    {
      alarmDescription:
        'More than half of the webhook delivery attempts got no 2xx answer for 15 minutes (at least 20 ' +
        'attempts per 5 minutes). Runbook: docs/operate.md#runbook: the outcome split on the dashboard tells a ' +
        "platform fault (network_error everywhere) from a few tenants' endpoints failing.",
      threshold: 50,
      evaluationPeriods: 3,
      comparisonOperator: ABOVE,
    },
  );
  for (const [jobType, codes] of Object.entries(PLATFORM_JOB_FAILURE_CODES)) {
    alarm(
      `JobFailures-${jobType}`,
      new MathExpression({
        expression: codes.map((_, i) => `f${i}`).join(' + '),
        usingMetrics: Object.fromEntries(
          codes.map((code, i) => [`f${i}`, businessMetric(METRIC.jobFailures, { jobType, code })]),
        ),
        period: PERIOD,
        label: `${jobType} jobs failed by the platform (${codes.join(', ')})`,
      }),
      {
        alarmDescription:
          `5 or more ${jobType} jobs failed in 5 minutes with a code that means the platform failed them ` +
          `(${codes.join(', ')}). Runbook: docs/operate.md#runbook: the dashboard's "Job failures by code" and the ` +
          'worker log (jobId) or the execution history give the cause.',
        threshold: 5,
        evaluationPeriods: 1,
        comparisonOperator: AT_LEAST,
      },
    );
  }
};

/** Every alarm, in the order the stack has always created them. */
export const addAlarms = (alarm: AddAlarm, observed: Observed): void => {
  apiAlarms(alarm, observed.rest);
  functionAlarms(alarm, observed);
  tableAlarms(alarm, observed.table);
  stateMachineAlarms(alarm, observed.machines);
  businessAlarms(alarm);
  queueAlarms(alarm, observed.queues);
  failureQueueAlarms(alarm, observed.failureQueues);
};
