import type { APIGatewayProxyResult } from 'aws-lambda';
import { countRequest } from '../observability/metrics';
import type { RouteDefinition } from '../routes/route-definition';
import { type ApiMiddleware, routeOf } from './api-request';
import { PROBLEM_CONTENT_TYPE } from './problem';

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
export const countRequests = (routes: readonly RouteDefinition[]): ApiMiddleware => {
  const count: NonNullable<ApiMiddleware['after']> = ({ event, response }) => {
    if (response) countRequest(routeOf(routes, event), response.statusCode, problemCodeOf(response));
  };
  return { after: count, onError: count };
};
