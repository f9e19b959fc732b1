import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { findRouteIn, type RouteDefinition } from '../routes/route-definition';

/**
 * What the API chain's middlewares read of a request (its id, route and company), kept in one place so each
 * middleware file holds only its own concern.
 */
export type ApiMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

export const requestIdOf = (event: APIGatewayProxyEvent): string =>
  event.requestContext?.requestId ?? 'unknown';

/** The route as the route table names it (`GET /v1/self`): a bounded set, fit for a metric dimension. */
export const routeOf = (routes: readonly RouteDefinition[], event: APIGatewayProxyEvent): string => {
  const route = findRouteIn(routes, event.httpMethod, event.resource);
  return route ? `${route.method} ${route.path}` : 'unmatched';
};

/** The company the authorizer resolved, absent on public routes. */
export const companyIdOf = (event: APIGatewayProxyEvent): string | undefined => {
  const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  return typeof authorizer?.companyId === 'string' ? authorizer.companyId : undefined;
};
