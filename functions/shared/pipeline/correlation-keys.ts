import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../observability/logger';

/** The keys that name a unit of work: `companyId`, `jobId`, `messageId`, a record count… */
export type CorrelationKeys = Record<string, unknown>;

/**
 * The unit of work's correlation keys on every log line of the invocation, after the Lambda context
 * (`powertoolsChain` resets them when the invocation ends, so a warm instance never carries a previous
 * event's keys into the next).
 */
export const correlationKeys = <E, R>(
  keysOf: (event: E) => CorrelationKeys,
): MiddlewareObj<E, R, Error, Context> => ({
  before: ({ event }) => {
    logger.appendKeys(keysOf(event));
  },
});
