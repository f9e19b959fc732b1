import { logger } from '../observability/logger';
import { metrics } from '../observability/metrics';
import { tracer } from '../observability/tracer';
import type { RouteDefinition } from '../routes/route-definition';
import { type ApiMiddleware, companyIdOf, requestIdOf, routeOf } from './api-request';

/**
 * The request's correlation keys on every log line (after the Lambda context that `injectLambdaContext`
 * adds; it resets them after the invocation), as trace annotations (X-Ray finds a request's trace by
 * `annotation.requestId`), as properties of the request's EMF line (the route is a dimension there), and
 * `x-request-id` on every response.
 */
export const requestCorrelation = (routes: readonly RouteDefinition[]): ApiMiddleware => ({
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
