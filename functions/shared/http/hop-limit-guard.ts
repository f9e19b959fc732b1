import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { workflowHopOf } from '../workflow-hops';
import { lowercaseHeaders } from './request';

/**
 * Refuses a request whose `x-workflow-hop` is malformed or deeper than the limit (`workflow-hops.ts`) on
 * every route, before the request is metered or any work is done: a chain of workflows calling this API
 * stops here, whichever route it reaches.
 */
export const refuseDeepWorkflowHops = (): MiddlewareObj<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  Context
> => ({
  before: ({ event }) => {
    workflowHopOf(lowercaseHeaders(event.headers));
  },
});
