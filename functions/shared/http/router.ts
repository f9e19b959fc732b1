import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { AppError, InsufficientScopeError, NotImplementedError } from '../errors';
import {
  findRouteByResource,
  type OperationId,
  type RouteDefinition,
  type RouteGroup,
  type RouteOf,
} from '../routes/route-table';
import type * as z from '../zod';
import { type AuthContext, readAuthContext } from './auth-context';
import { lowercaseHeaders, parseRequest } from './request';

type Infer<R, K extends string> = R extends { [P in K]: infer S extends z.ZodType } ? z.output<S> : undefined;

export interface RouteInput<O extends OperationId> {
  params: Infer<RouteOf<O>, 'params'>;
  query: Infer<RouteOf<O>, 'query'>;
  body: Infer<RouteOf<O>, 'body'>;
  /** Present on every authenticated route; `undefined` only on public routes. */
  auth: RouteOf<O>['scope'] extends 'public' ? undefined : AuthContext;
  requestId: string;
  headers: Record<string, string>;
}

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type RouteHandler<O extends OperationId> = (input: RouteInput<O>) => Promise<RouteResult>;

/** The handlers a group implements; a declared route without one answers 501 `not_implemented`. */
export type GroupHandlers = { [O in OperationId]?: RouteHandler<O> };

/**
 * Dispatches an API Gateway proxy event to the handler of its route: resolves the route from the table by
 * method and resource, checks the caller's scope, parses the input, and shapes the JSON response.
 */
export const createRouter =
  (group: RouteGroup, handlers: GroupHandlers) =>
  async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const route: RouteDefinition | undefined = findRouteByResource(event.httpMethod, event.resource);
    if (!route || route.group !== group) throw new AppError('not_found', 'No such route.');
    const auth = route.scope === 'public' ? undefined : readAuthContext(event);
    if (auth && route.scope !== 'public' && !auth.scopes.includes(route.scope)) {
      throw new InsufficientScopeError(route.scope);
    }
    const handler = handlers[route.operationId as OperationId] as RouteHandler<OperationId> | undefined;
    if (!handler) throw new NotImplementedError(route.operationId);
    const headers = lowercaseHeaders(event.headers);
    const { params, query, body } = parseRequest(route, event, headers);
    const result = await handler({
      params,
      query,
      body,
      auth,
      requestId: event.requestContext.requestId,
      headers,
    } as RouteInput<OperationId>);
    return {
      statusCode: result.status ?? route.successStatus ?? 200,
      headers: {
        'content-type': 'application/json',
        'cache-control': route.scope === 'public' ? 'public, max-age=60' : 'no-store',
        ...result.headers,
      },
      body: JSON.stringify(result.body),
    };
  };
