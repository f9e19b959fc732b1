import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { AppError, InsufficientScopeError, NotImplementedError } from '../errors';
import {
  findRouteByResource,
  type OperationId,
  type RouteDefinition,
  type RouteGroup,
  type RouteOf,
} from '../routes/route-table';
import type { AuthContext } from '../types/auth';
import type * as z from '../zod';
import { readAuthContext } from './auth-context';
import { withIdempotency } from './idempotency';
import { refuseLogEntryWrites } from './log-entry-guard';
import { lowercaseHeaders, parseRequest } from './request';

/** The Lambda context of an API request: the chain's first step puts the caller's credential on it, once. */
export interface ApiContext extends Context {
  auth?: AuthContext;
}

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
 * method and resource, runs the guards the route declares (the log-entry guard before the scope check, so it
 * answers whatever the credential's scopes), checks the caller's scope, parses the input, runs the handler
 * (under the request's `Idempotency-Key` where the route is idempotent) and shapes the JSON response.
 */
export const createRouter =
  (group: RouteGroup, handlers: GroupHandlers) =>
  async (event: APIGatewayProxyEvent, context?: ApiContext): Promise<APIGatewayProxyResult> => {
    const route: RouteDefinition | undefined = findRouteByResource(event.httpMethod, event.resource);
    if (!route || route.group !== group) throw new AppError('not_found', 'No such route.');
    if (route.writesItemsOfType) refuseLogEntryWrites(event.pathParameters?.type);
    const auth = route.scope === 'public' ? undefined : (context?.auth ?? readAuthContext(event));
    if (auth && route.scope !== 'public' && !auth.scopes.includes(route.scope)) {
      throw new InsufficientScopeError(route.scope);
    }
    const handler = handlers[route.operationId as OperationId] as RouteHandler<OperationId> | undefined;
    if (!handler) throw new NotImplementedError(route.operationId);
    const headers = lowercaseHeaders(event.headers);
    const { params, query, body } = parseRequest(route, event, headers);
    const run = async () => {
      const result = await handler({
        params,
        query,
        body,
        auth,
        requestId: event.requestContext.requestId,
        headers,
      } as RouteInput<OperationId>);
      return { ...result, status: result.status ?? route.successStatus ?? 200 };
    };
    const result =
      route.idempotent && auth
        ? await withIdempotency(
            { companyId: auth.companyId, operationId: route.operationId, params, body },
            headers['idempotency-key'],
            run,
          )
        : await run();
    return {
      statusCode: result.status,
      headers: {
        'content-type': 'application/json',
        'cache-control': route.scope === 'public' ? 'public, max-age=60' : 'no-store',
        ...result.headers,
      },
      body: JSON.stringify(result.body),
    };
  };
