import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { AppError, InsufficientScopeError, NotImplementedError, ValidationError } from '../errors';
import { etagOf, noneMatchHits } from '../etag';
import { findRouteIn, type RouteDefinition } from '../routes/route-definition';
import type { OperationId, RouteOf } from '../routes/route-table';
import type { AuthContext } from '../types/auth';
import type * as z from '../zod';
import { readAuthContext } from './auth-context';
import { deprecationHeaders } from './deprecation';
import { type IdempotentResponse, withIdempotency } from './idempotency';
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
  /** The time of the call: the request's arrival, or the step's at a workflow door. */
  now: Date;
}

interface ResultMeta {
  status?: number;
  headers?: Record<string, string>;
  /**
   * What an idempotent replay answers, when `body` holds a secret shown once (a token a sync workflow run
   * minted): the body with that secret redacted. Only this is stored with the idempotency key.
   */
  durableBody?: unknown;
}

/**
 * What a handler answers: a JSON `body` of the shape `B` (its route's response schema), or a `raw` body sent
 * as it is instead (the documentation page and its assets, an empty answer): a Buffer goes base64-encoded, and
 * the handler's `headers` name its content type.
 */
export type RouteResult<B = unknown> = ResultMeta & ({ body: B; raw?: undefined } | RawBody);

/** A body sent as it is, whatever the route's JSON response schema (see `RouteResult`). */
export interface RawBody {
  body?: undefined;
  raw: string | Buffer;
}

/** A handler's result that is a raw body. */
export type RawResult = ResultMeta & RawBody;

/**
 * The JSON bodies a route may answer: the output of its response schema, or of one of its other successful
 * answers (`alsoAnswers`). Types only: reading them builds no schema.
 */
export type ResponseBody<O extends OperationId> =
  | z.output<RouteOf<O>['response']>
  | (RouteOf<O> extends { alsoAnswers: readonly (infer A)[] }
      ? A extends { response: infer S extends z.ZodType }
        ? z.output<S>
        : never
      : never);

/** A route's handler: its body type comes from the route's schemas, so an answer of another shape does not compile. */
export type RouteHandler<O extends OperationId> = (
  input: RouteInput<O>,
) => Promise<RouteResult<ResponseBody<O>>>;

/** A handler's result with its status settled, as the idempotency store keeps and replays it. */
type Answer = IdempotentResponse & { raw?: string | Buffer };

/**
 * The handlers of a group: exactly one for each route of its section of the table (`Routes`) that is not
 * `planned` (a planned route answers 501 `not_implemented`), and none of another group's: a handler missing,
 * or one for an operation the section does not hold, does not compile.
 */
export type GroupHandlers<Routes extends readonly RouteDefinition[]> = {
  [O in Exclude<Routes[number], { planned: true }>['operationId'] & OperationId]: RouteHandler<O>;
};

/** The answer with the route's `shownOnce` members set to null (what an idempotency key keeps and replays). */
const withoutShownOnce = (route: RouteDefinition, body: unknown): unknown =>
  typeof body === 'object' && body !== null && !Array.isArray(body)
    ? { ...body, ...Object.fromEntries((route.shownOnce ?? []).map((name) => [name, null])) }
    : body;

/** Refuses a caller whose credential lacks the route's scope (shared by the router and the MCP tools). */
export const requireRouteScope = (route: RouteDefinition, auth: AuthContext): void => {
  if (route.scope === 'public' || route.scope === 'authenticated') return;
  if (!auth.scopes.includes(route.scope)) throw new InsufficientScopeError(route.scope);
};

/**
 * Dispatches an API Gateway proxy event to the handler of its route: resolves the route from the table by
 * method and resource, runs the guards the route declares (the log-entry guard before the scope check, so it
 * answers whatever the credential's scopes), checks the caller's scope, parses the input, runs the handler
 * (under the request's `Idempotency-Key` where the route is `keyed`) and shapes the JSON response.
 */
export const createRouter =
  <const Routes extends readonly RouteDefinition[]>(
    group: Routes[number]['group'],
    routes: Routes,
    handlers: GroupHandlers<Routes>,
  ) =>
  async (event: APIGatewayProxyEvent, context?: ApiContext): Promise<APIGatewayProxyResult> => {
    const route: RouteDefinition | undefined = findRouteIn(routes, event.httpMethod, event.resource);
    if (!route || route.group !== group) throw new AppError('not_found', 'No such route.');
    if (route.writesItemsOfType) refuseLogEntryWrites(event.pathParameters?.type);
    const auth = route.scope === 'public' ? undefined : (context?.auth ?? readAuthContext(event));
    if (auth) requireRouteScope(route, auth);
    // A planned route has no handler (501); the type of `handlers` requires one for every other route.
    const handler = (handlers as unknown as Partial<Record<string, RouteHandler<OperationId>>>)[
      route.operationId
    ];
    if (!handler) throw new NotImplementedError(route.operationId);
    const requestHeaders = lowercaseHeaders(event.headers);
    const { params, query, body } = parseRequest(route, event, requestHeaders);
    const noneMatch = route.etag ? requestHeaders['if-none-match'] : undefined;
    // The document declares the header at most 1024 printable characters: a longer one is refused, not ignored.
    if (noneMatch !== undefined && [...noneMatch].length > 1024) {
      throw new ValidationError([
        { pointer: '/headers/if-none-match', message: 'must be at most 1024 printable ASCII characters' },
      ]);
    }
    const run = async (): Promise<Answer> => {
      const result = await handler({
        params,
        query,
        body,
        auth,
        requestId: event.requestContext.requestId,
        headers: requestHeaders,
        now: new Date(),
      } as RouteInput<OperationId>);
      const answer = { ...result, body: result.body, status: result.status ?? route.successStatus ?? 200 };
      return route.shownOnce
        ? { ...answer, durableBody: withoutShownOnce(route, answer.durableBody ?? answer.body) }
        : answer;
    };
    if (route.idempotency === 'refused' && requestHeaders['idempotency-key'] !== undefined) {
      throw new AppError(
        'idempotency_key_not_supported',
        `${route.operationId} cannot honour Idempotency-Key; send the request without it.`,
      );
    }
    const result: Answer =
      route.idempotency === 'keyed' && auth
        ? await withIdempotency(
            { companyId: auth.companyId, operationId: route.operationId, params, body },
            requestHeaders['idempotency-key'],
            run,
          )
        : await run();
    // A replay of an answer kept before its route declared `shownOnce` holds the members too: never shown again.
    if (route.shownOnce && result.headers?.['idempotent-replayed'] === 'true')
      result.body = withoutShownOnce(route, result.body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'cache-control': route.scope === 'public' ? 'public, max-age=60' : 'no-store',
      ...result.headers,
      ...deprecationHeaders(route, query as Record<string, unknown> | undefined),
    };
    if (route.answersEtag && result.status < 300 && result.raw === undefined && !headers.etag) {
      // The tag the resource's read answers for it now, the same for every member beside it (a secret).
      const member = route.answersEtag;
      headers.etag = etagOf(
        member === true ? result.body : { [member]: (result.body as Record<string, unknown>)[member] },
      );
    }
    // A raw answer names its own tag (one per content coding), or has none.
    const etag =
      route.etag && result.status === 200
        ? (result.headers?.etag ?? (result.raw === undefined ? etagOf(result.body) : undefined))
        : undefined;
    if (etag !== undefined) {
      // Kept by the client alone and revalidated on every use: the tag, never the tenant's data, decides.
      // A handler that answers part of a resource names the tag of the whole of it. A public answer may be
      // kept by shared caches too, revalidated likewise.
      headers.etag = etag;
      headers['cache-control'] = route.scope === 'public' ? 'public, no-cache' : 'private, no-cache';
      if (noneMatchHits(requestHeaders['if-none-match'], etag)) {
        const { 'content-type': _type, 'content-encoding': _coding, ...kept } = headers;
        return { statusCode: 304, headers: kept, body: '' };
      }
    }
    if (result.raw === undefined) {
      return { statusCode: result.status, headers, body: JSON.stringify(result.body) };
    }
    if (result.status === 204) {
      const { 'content-type': _none, ...kept } = headers;
      return { statusCode: 204, headers: kept, body: '' };
    }
    return typeof result.raw === 'string'
      ? { statusCode: result.status, headers, body: result.raw }
      : { statusCode: result.status, headers, body: result.raw.toString('base64'), isBase64Encoded: true };
  };
