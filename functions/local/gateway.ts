import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { AppError, ValidationError } from '../shared/errors';
import type { LocalAccessLogRecord } from '../shared/http/access-log';
import {
  GATEWAY_RESPONSE_HEADERS,
  type GatewayResponseType,
  gatewayResponse,
  gatewayResponseTemplate,
} from '../shared/http/gateway-responses';
import { methodNotAllowed, problemResponse } from '../shared/http/problem';
import { rateLimitHeaders, retryAfterSeconds } from '../shared/http/rate-limit-headers';
import type { RouteGroup } from '../shared/routes/route-table';
import { failedRequestRecord, problemCodeOf } from './gateway-access-log';
import { headerMaps, lambdaContext, queryMaps, readBody, withTimeout } from './gateway-events';
import { policyAllows } from './gateway-policy';
import { MAX_URL_BYTES, matchRoute } from './gateway-routes';
import { type GatewayServer, openGatewayServer } from './gateway-server';
import { createRateLimiter } from './rate-limiter';

/**
 * A small emulator of API Gateway (REST API, stage `v1`, Lambda proxy integrations, Lambda REQUEST
 * authorizer without caching). It builds version 1.0 proxy events as API Gateway does, takes the source IP
 * from the socket (never from `X-Forwarded-For`), runs the authorizer, enforces its policy and passes its
 * context, throttles each company at its plan's request rate (API Gateway's usage plans on AWS; answers
 * carry the IETF `RateLimit-Policy` and `RateLimit` fields), invokes the group handler in-process, answers its own failures with the same gateway responses
 * as the deployed API, and writes one JSON access-log line per request.
 */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  authorizer: AuthorizerHandler;
  handlers: Record<RouteGroup, ProxyHandler>;
  onAccessLog: (record: LocalAccessLogRecord) => void;
  /** API Gateway's payload limit. */
  maxBodyBytes?: number;
  /** API Gateway's integration timeout. */
  integrationTimeoutMs?: number;
}

const STAGE = 'v1';
const API_ID = 'local';
const ACCOUNT_ID = '000000000000';
const REGION = 'local';

/**
 * Serves the API on `at`: a gateway server the stack opened at the start of start-up (`openGatewayServer`,
 * answering 503 until now), or a port to open one on.
 */
export const startGateway = async (
  options: GatewayOptions,
  at: number | GatewayServer = 0,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> => {
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const integrationTimeoutMs = options.integrationTimeoutMs ?? 29_000;
  const rates = createRateLimiter();
  /** One token of the company's bucket, at the rate the authorizer resolved (plan and overrides). */
  const companyRate = (context: Record<string, string>, now: number) => {
    const requestsPerSecond = Number(context.requestsPerSecond);
    const burst = Number(context.burst);
    if (!context.companyId || !(requestsPerSecond > 0) || !(burst > 0)) return undefined;
    return rates.take(context.companyId, requestsPerSecond, burst, now);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const sourceIp = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const userAgent = req.headers['user-agent'] ?? null;
    let authorizerContext: Record<string, string> = {};
    let resourcePath: string | null = null;
    let integrationLatency: number | null = null;
    let rateHeaders: Record<string, string> = {};

    const send = (
      status: number,
      headers: Record<string, string | string[]>,
      body: Buffer,
      error?: string,
    ) => {
      res.writeHead(status, { ...headers, 'x-request-id': requestId, 'content-length': String(body.length) });
      res.end(body);
      const record: LocalAccessLogRecord = {
        requestId,
        time: new Date(started).toISOString(),
        timeEpochMs: started,
        method,
        path: url.pathname.slice(0, 2048),
        route: resourcePath,
        status,
        latencyMs: Date.now() - started,
        integrationLatencyMs: integrationLatency,
        responseLength: body.length,
        sourceIp,
        userAgent,
        companyId: authorizerContext.companyId ?? null,
        authMethod: authorizerContext.authMethod ?? null,
        keyId: authorizerContext.keyId ?? null,
        errorMessage: error ?? null,
        problemCode: problemCodeOf(headers, body),
      };
      options.onAccessLog(record);
    };
    const sendGatewayResponse = (type: GatewayResponseType, extra: Record<string, string> = {}) => {
      const definition = gatewayResponse(type);
      const body = gatewayResponseTemplate(definition).replaceAll('$context.requestId', requestId);
      const headers = Object.fromEntries(
        Object.entries({ ...GATEWAY_RESPONSE_HEADERS, ...definition.headers, ...extra }).map(([k, v]) => [
          k,
          v.replaceAll('$context.requestId', requestId),
        ]),
      );
      send(definition.statusCode, headers, Buffer.from(body), definition.detail);
    };

    const sendProblem = (error: AppError, headers: Record<string, string> = {}) => {
      const problem = problemResponse(error, requestId);
      send(
        problem.statusCode,
        { ...(problem.headers as Record<string, string>), ...headers },
        Buffer.from(problem.body),
        error.message,
      );
    };

    if (Buffer.byteLength(req.url ?? '', 'utf8') > MAX_URL_BYTES) {
      return sendProblem(new AppError('uri_too_long', `The request URL exceeds ${MAX_URL_BYTES} bytes.`));
    }
    const stagePrefix = `/${STAGE}`;
    if (url.pathname !== stagePrefix && !url.pathname.startsWith(`${stagePrefix}/`)) {
      return sendGatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    }
    const path = url.pathname.slice(stagePrefix.length) || '/';
    const matched = matchRoute(method, path);
    if (!matched) return sendGatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    if ('allow' in matched) {
      // On AWS each resource's ANY method answers this from a mock integration (see the API stack).
      return sendProblem(methodNotAllowed(method, matched.allow), { allow: matched.allow.join(', ') });
    }
    if ('malformed' in matched) {
      return sendProblem(
        new ValidationError([{ pointer: '/path', message: 'is not valid percent-encoded UTF-8' }]),
      );
    }
    const { compiled, pathParameters } = matched;
    resourcePath = compiled.resource;

    const raw = await readBody(req, maxBodyBytes);
    if (raw === 'too_large') return sendGatewayResponse('REQUEST_TOO_LARGE');
    const { headers, multiValueHeaders } = headerMaps(req);
    const query = queryMaps(url);
    const requestContext = {
      accountId: ACCOUNT_ID,
      apiId: API_ID,
      authorizer: null as Record<string, unknown> | null,
      domainName: req.headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      extendedRequestId: requestId,
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent,
        userArn: null,
      },
      path: url.pathname,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTime: new Date(started).toUTCString(),
      requestTimeEpoch: started,
      resourceId: compiled.route.operationId,
      resourcePath: compiled.resource,
      stage: STAGE,
    };

    if (compiled.route.scope !== 'public') {
      const methodArn = `arn:aws:execute-api:${REGION}:${ACCOUNT_ID}:${API_ID}/${STAGE}/${method}${path}`;
      const authorizerEvent: APIGatewayRequestAuthorizerEvent = {
        type: 'REQUEST',
        methodArn,
        resource: compiled.resource,
        path,
        httpMethod: method,
        headers,
        multiValueHeaders,
        pathParameters,
        queryStringParameters: query.single,
        multiValueQueryStringParameters: query.multi,
        stageVariables: null,
        requestContext: { ...requestContext, authorizer: undefined } as never,
      };
      let result: APIGatewayAuthorizerResult;
      try {
        result = await options.authorizer(authorizerEvent);
      } catch (error) {
        const unauthorized = error instanceof Error && error.message === 'Unauthorized';
        return sendGatewayResponse(unauthorized ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE');
      }
      if (!policyAllows(result, methodArn)) return sendGatewayResponse('ACCESS_DENIED');
      authorizerContext = Object.fromEntries(
        Object.entries(result.context ?? {}).map(([k, v]) => [k, String(v)]),
      );
      requestContext.authorizer = {
        ...authorizerContext,
        principalId: result.principalId,
        integrationLatency: 0,
      };
      // The company's request rate, as the usage plan of its plan throttles it on AWS.
      const rate = companyRate(authorizerContext, Date.now());
      if (rate && !rate.allowed) {
        return sendGatewayResponse('THROTTLED', {
          ...rateLimitHeaders(rate),
          'retry-after': String(retryAfterSeconds(rate)),
        });
      }
      if (rate) rateHeaders = rateLimitHeaders(rate);
    }

    const event: APIGatewayProxyEvent = {
      resource: compiled.resource,
      path,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: query.single,
      multiValueQueryStringParameters: query.multi,
      pathParameters: compiled.names.length > 0 ? pathParameters : null,
      stageVariables: null,
      requestContext: requestContext as APIGatewayProxyEvent['requestContext'],
      // The API's binary media types are `*/*`: every body reaches the function as its exact bytes.
      body: raw.length === 0 ? null : raw.toString('base64'),
      isBase64Encoded: raw.length > 0,
    };
    const group = compiled.route.group;
    const integrationStarted = Date.now();
    let result: APIGatewayProxyResult | 'timeout';
    try {
      result = await withTimeout(
        options.handlers[group](
          event,
          lambdaContext(REGION, ACCOUNT_ID, group, randomUUID(), integrationStarted + integrationTimeoutMs),
        ),
        integrationTimeoutMs,
      );
    } catch {
      integrationLatency = Date.now() - integrationStarted;
      return sendGatewayResponse('DEFAULT_5XX');
    }
    integrationLatency = Date.now() - integrationStarted;
    if (result === 'timeout' || typeof result?.statusCode !== 'number')
      return sendGatewayResponse('DEFAULT_5XX');
    const responseHeaders: Record<string, string | string[]> = { ...rateHeaders };
    for (const [k, v] of Object.entries(result.headers ?? {})) responseHeaders[k] = String(v);
    for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) responseHeaders[k] = v.map(String);
    const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
    send(result.statusCode, responseHeaders, body);
  };

  const gateway = typeof at === 'number' ? await openGatewayServer(at) : at;
  const { server } = gateway;
  gateway.serve((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Unreachable by design; if it happens, the answer is still a logged problem.
      const requestId = randomUUID();
      const problem = problemResponse(error, requestId);
      if (!res.headersSent) res.writeHead(problem.statusCode, problem.headers as Record<string, string>);
      res.end(problem.body);
      options.onAccessLog(
        failedRequestRecord(requestId, req.method ?? '-', req.url ?? '-', 500, String(error), 'internal'),
      );
    });
  });
  // A request Node cannot even parse (headers beyond `MAX_HEADER_BYTES`, a broken request line) is answered
  // as problem+json too, and logged.
  server.removeAllListeners('clientError');
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // A peer that went away (a reset keep-alive connection) gets no answer and is no request.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const problem = problemResponse(
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('request_header_fields_too_large', 'The request line and headers are too large.')
        : new ValidationError([{ pointer: '/', message: 'is not a valid HTTP request' }]),
      requestId,
    );
    const head = Object.entries({ ...problem.headers, 'content-length': Buffer.byteLength(problem.body) })
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join('\r\n');
    socket.end(
      `HTTP/1.1 ${problem.statusCode} ${STATUS_CODES[problem.statusCode]}\r\n${head}\r\nconnection: close\r\n\r\n${problem.body}`,
    );
    options.onAccessLog(
      failedRequestRecord(
        requestId,
        '-',
        '-',
        problem.statusCode,
        error.code ?? error.message,
        JSON.parse(problem.body).code,
      ),
    );
  });
  return { url: gateway.url, server, close: gateway.close };
};
