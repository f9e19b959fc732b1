import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../observability/logger';
import { tracer } from '../observability/tracer';
import { flushMetricsAfter } from './flush-metrics';

/**
 * The Powertools head of every function's middy chain, in this order: the Lambda context on every log line
 * (and the invocation's keys reset after it), the handler's trace subsegment, then the Powertools Metrics
 * buffer, flushed once when the invocation ends, by success or error (`./flush-metrics.ts`). The instances
 * come from `../logger`, the one place that decides how they are made.
 *
 * `trace` replaces the default subsegment when a function decides itself what counts as its failure (an API
 * group: a 4xx problem is an answer, not a fault). Responses are never copied into traces: they hold
 * tenants' data.
 */
export const powertoolsChain = <E, R>(
  trace: MiddlewareObj<E, R, Error, Context> = captureLambdaHandler(tracer, { captureResponse: false }),
): MiddlewareObj<E, R, Error, Context>[] => [
  injectLambdaContext(logger, { resetKeys: true }),
  trace,
  flushMetricsAfter<E, R>(),
];
