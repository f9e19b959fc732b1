import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { AppError } from '../errors';
import { logger } from '../logger';
import type { RouteGroup } from '../routes/route-table';
import { problemResponse } from './problem';
import { createRouter, type GroupHandlers } from './router';

type Middleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

const requestIdOf = (event: APIGatewayProxyEvent): string => event.requestContext?.requestId ?? 'unknown';

/** First: correlation keys on every log line of the request, and `x-request-id` on every response. */
const correlation = (): Middleware => ({
  before: ({ event, context }) => {
    const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
    logger.addContext(context);
    logger.appendKeys({
      requestId: requestIdOf(event),
      companyId: typeof authorizer?.companyId === 'string' ? authorizer.companyId : undefined,
      route: `${event.httpMethod} ${event.resource}`,
    });
  },
  after: (request) => {
    if (request.response) {
      request.response.headers = { ...request.response.headers, 'x-request-id': requestIdOf(request.event) };
    }
    logger.resetKeys();
  },
});

/** Last: every error becomes problem+json; 5xx are logged with the cause and answered generically. */
const problemErrors = (): Middleware => ({
  onError: (request) => {
    const { error } = request;
    if (!(error instanceof AppError) || (error.status >= 500 && error.code !== 'not_implemented')) {
      logger.error('request failed', { error: error as Error });
    } else {
      logger.info('request refused', { code: error.code, status: error.status });
    }
    request.response = problemResponse(error, requestIdOf(request.event));
    logger.resetKeys();
  },
});

/** The one handler factory every route group uses: the same middleware chain around the group's router. */
export const createApiHandler = (group: RouteGroup, handlers: GroupHandlers) =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(correlation())
    .use(problemErrors())
    .handler(createRouter(group, handlers));
