import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type CorrelationKeys, correlationKeys } from './correlation-keys';
import { powertoolsChain } from './powertools-chain';

/**
 * An invocation outside Lambda (the local stack runs the workers and the authorizer in-process, and tests
 * call handlers directly) may come without a context: an empty one stands in, so the very same chain runs
 * (its log lines then carry no Lambda fields, and middy sets no early-timeout guard).
 */
const OUTSIDE_LAMBDA: Partial<Context> = Object.freeze({});

/** A Lambda entry as the runtime, the local stack and the tests call it. */
export type LambdaHandler<E, R> = (event: E, context?: Context) => Promise<R>;

/** Runs a middy handler with the invocation's context, or the empty stand-in outside Lambda. */
export const withContext =
  <E, R>(handler: (event: E, context: Context) => Promise<R>): LambdaHandler<E, R> =>
  (event, context) =>
    handler(event, context ?? (OUTSIDE_LAMBDA as Context));

/**
 * The handler factory of every function that is not an API route group (the authorizer, the Step Functions
 * task workers, the stream dispatcher, the log shipper): the Powertools chain, then the unit of work's
 * correlation keys, around `work`. API groups add their HTTP middlewares to the same chain
 * (`http/middleware.ts`).
 */
export const createHandler = <E, R>(
  work: (event: E, context: Context) => Promise<R>,
  keysOf: (event: E) => CorrelationKeys = () => ({}),
): LambdaHandler<E, R> =>
  withContext(
    middy<E, R, Error, Context>()
      .use(powertoolsChain<E, R>())
      .use(correlationKeys<E, R>(keysOf))
      .handler(work),
  );
