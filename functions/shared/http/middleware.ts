import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { addToMeter, MeterLimitReachedError, secondsToNextUtcMonth } from '../data/usage-meters';
import { AppError } from '../errors';
import { countBilledUnits, countRequest, logger, metrics, tracer } from '../logger';
import { findRouteIn, type RouteDefinition, type RouteGroup } from '../routes/route-definition';
import { readAuthContext } from './auth-context';
import { PROBLEM_CONTENT_TYPE, problemResponse } from './problem';
import { type ApiContext, createRouter, type GroupHandlers } from './router';
import { refuseDeepWorkflowHops } from './workflow-hop';

type Middleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

const requestIdOf = (event: APIGatewayProxyEvent): string => event.requestContext?.requestId ?? 'unknown';

/** The route as the route table names it (`GET /v1/self`): a bounded set, fit for a metric dimension. */
const routeOf = (routes: readonly RouteDefinition[], event: APIGatewayProxyEvent): string => {
  const route = findRouteIn(routes, event.httpMethod, event.resource);
  return route ? `${route.method} ${route.path}` : 'unmatched';
};

const companyIdOf = (event: APIGatewayProxyEvent): string | undefined => {
  const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  return typeof authorizer?.companyId === 'string' ? authorizer.companyId : undefined;
};

/**
 * The request's correlation keys on every log line (after the Lambda context that `injectLambdaContext`
 * adds; it resets them after the invocation), as trace annotations (X-Ray finds a request's trace by
 * `annotation.requestId`), as properties of the request's EMF line (the route is a dimension there), and
 * `x-request-id` on every response.
 */
const correlation = (routes: readonly RouteDefinition[]): Middleware => ({
  before: ({ event }) => {
    const requestId = requestIdOf(event);
    const companyId = companyIdOf(event);
    const route = routeOf(routes, event);
    logger.appendKeys({ requestId, companyId, route });
    tracer.putAnnotation('requestId', requestId);
    tracer.putAnnotation('route', route);
    metrics.addMetadata('requestId', requestId);
    if (companyId !== undefined) {
      tracer.putAnnotation('companyId', companyId);
      metrics.addMetadata('companyId', companyId);
    }
  },
  after: (request) => {
    if (request.response) {
      request.response.headers = { ...request.response.headers, 'x-request-id': requestIdOf(request.event) };
    }
  },
});

/**
 * A handler subsegment per invocation (Powertools `captureLambdaHandler`). Responses are not copied into the
 * trace (they hold tenant data). A request refused with a 4xx problem is an answer, not a fault: its
 * subsegment is closed as a success; only what became a 5xx is recorded as the segment's error.
 */
const traceHandler = (): Middleware => {
  const traced = captureLambdaHandler(tracer, { captureResponse: false });
  return {
    before: traced.before,
    after: traced.after,
    onError: async (request) => {
      const answered = (request.response?.statusCode ?? 500) < 500;
      await (answered ? traced.after : traced.onError)?.(request);
    },
  };
};

/** The problem code of a problem+json answer (from its body), if the answer is one. */
const problemCodeOf = (response: APIGatewayProxyResult): string | undefined => {
  if (response.headers?.['content-type'] !== PROBLEM_CONTENT_TYPE) return undefined;
  try {
    const { code } = JSON.parse(response.body) as { code?: unknown };
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Counts every answered request by route, status and problem code, the error handler's answers included
 * (its `onError` runs before this one's, so the problem response is already there).
 */
const countRequests = (routes: readonly RouteDefinition[]): Middleware => {
  const count: NonNullable<Middleware['after']> = ({ event, response }) => {
    if (response) countRequest(routeOf(routes, event), response.statusCode, problemCodeOf(response));
  };
  return { after: count, onError: count };
};

/**
 * Reads the caller's credential once (the router takes it from the context) and adds 1 to `api_requests`
 * (UTC month and day) of every authenticated request in one conditional
 * `UpdateItem`; at the monthly allowance it is refused with 429 `quota_exceeded` before any other work.
 * Public routes carry no authorizer context and are not metered.
 */
const meterApiRequests = (): Middleware => ({
  before: async ({ event, context }) => {
    if (companyIdOf(event) === undefined) return;
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
    countBilledUnits('api_requests', 1, { companyId: auth.companyId, requestId: requestIdOf(event) });
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
  },
});

/**
 * The one handler factory every route group uses: the same middleware chain around the group's router.
 * `before` runs top to bottom, `after` and `onError` bottom to top: the Lambda context and correlation keys
 * come first and are reset last, the metrics buffer is flushed once after the request was counted, and the
 * error handler is last, so every middleware above it sees its problem response.
 */
export const createApiHandler = (
  group: RouteGroup,
  /** The group's own routes (its section of the route table): its bundle holds no other area's. */
  routes: readonly RouteDefinition[],
  handlers: GroupHandlers,
) =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(traceHandler())
    .use(logMetrics(metrics, { throwOnEmptyMetrics: false }))
    .use(correlation(routes))
    .use(countRequests(routes))
    .use(refuseDeepWorkflowHops())
    .use(meterApiRequests())
    .use(problemErrors())
    .handler(createRouter(group, routes, handlers));
