import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { addToMeter, MeterLimitReachedError, secondsToNextUtcMonth } from '../data/usage-meters';
import { AppError } from '../errors';
import { logger } from '../logger';
import type { RouteGroup } from '../routes/route-table';
import { readAuthContext } from './auth-context';
import { problemResponse } from './problem';
import { type ApiContext, createRouter, type GroupHandlers } from './router';

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

/**
 * Second: reads the caller's credential once (the router takes it from the context) and every authenticated
 * request adds 1 to `api_requests` (UTC month and day) in one conditional
 * `UpdateItem`; at the monthly allowance it is refused with 429 `quota_exceeded` before any other work.
 * Public routes carry no authorizer context and are not metered.
 */
const meterApiRequests = (): Middleware => ({
  before: async ({ event, context }) => {
    const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
    if (typeof authorizer?.companyId !== 'string') return;
    const auth = readAuthContext(event);
    (context as ApiContext).auth = auth;
    const now = new Date();
    try {
      await addToMeter(auth.companyId, 'api_requests', 1, now, auth.apiRequestsPerMonth);
    } catch (error) {
      if (!(error instanceof MeterLimitReachedError)) throw error;
      throw new AppError('quota_exceeded', 'The monthly allowance of API requests of your plan is used up.', {
        retryAfterSeconds: secondsToNextUtcMonth(now),
        extensions: { meter: 'api_requests', limit: auth.apiRequestsPerMonth },
      });
    }
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
    .use(meterApiRequests())
    .use(problemErrors())
    .handler(createRouter(group, handlers));
