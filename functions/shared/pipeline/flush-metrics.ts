import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { flushMetrics } from '../observability/metrics';

/**
 * Writes the metrics buffer (`metrics` of `../logger`) once when the invocation ends, by success or error.
 * Powertools' own `logMetrics` middleware would do the same but warns on every flush of an empty buffer, and
 * most invocations of a worker buffer nothing (its figures have dimensions of their own and are written at
 * once as lines of their own): an empty buffer writes nothing here.
 */
export const flushMetricsAfter = <E, R>(): MiddlewareObj<E, R, Error, Context> => ({
  after: flushMetrics,
  onError: flushMetrics,
});
