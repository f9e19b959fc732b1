import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { AccessLogRecord } from '../shared/http/access-log';
import {
  GATEWAY_RESPONSE_HEADERS,
  type GatewayResponseType,
  gatewayResponse,
  gatewayResponseTemplate,
} from '../shared/http/gateway-responses';
import { apiResourcePath, ROUTES, type RouteDefinition, type RouteGroup } from '../shared/routes/route-table';

/**
 * A small emulator of API Gateway (REST API, stage `v1`, Lambda proxy integrations, Lambda REQUEST
 * authorizer without caching). It builds version 1.0 proxy events as API Gateway does, takes the source IP
 * from the socket (never from `X-Forwarded-For`), runs the authorizer, enforces its policy and passes its
 * context, invokes the group handler in-process, answers its own failures with the same gateway responses
 * as the deployed API, and writes one JSON access-log line per request.
 */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  authorizer: AuthorizerHandler;
  handlers: Record<RouteGroup, ProxyHandler>;
  onAccessLog: (record: AccessLogRecord) => void;
  /** API Gateway's payload limit. */
  maxBodyBytes?: number;
  /** API Gateway's integration timeout. */
  integrationTimeoutMs?: number;
}

const STAGE = 'v1';
const API_ID = 'local';
const ACCOUNT_ID = '000000000000';
const REGION = 'local';

interface CompiledRoute {
  route: RouteDefinition;
  resource: string;
  pattern: RegExp;
  names: string[];
}

const compile = (route: RouteDefinition): CompiledRoute => {
  const resource = apiResourcePath(route.path);
  const names: string[] = [];
  const source = resource
    .split('/')
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, resource, pattern: new RegExp(`^${source}$`), names };
};

const COMPILED = ROUTES.map(compile);

/** Resources are matched before methods, and literal segments win over parameters, as in API Gateway. */
const matchRoute = (method: string, resourcePath: string) => {
  const candidates = COMPILED.filter((c) => c.route.method === method)
    .map((c) => ({ c, m: c.pattern.exec(resourcePath) }))
    .filter((x) => x.m !== null)
    .sort((a, b) => a.c.names.length - b.c.names.length);
  const hit = candidates[0];
  if (!hit?.m) return undefined;
  const pathParameters: Record<string, string> = {};
  hit.c.names.forEach((name, i) => {
    pathParameters[name] = decodeURIComponent(hit.m?.[i + 1] ?? '');
  });
  return { compiled: hit.c, pathParameters };
};

const readBody = (req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });

const headerMaps = (req: IncomingMessage) => {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? '';
    const value = req.rawHeaders[i + 1] ?? '';
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  return { headers, multiValueHeaders };
};

const queryMaps = (url: URL) => {
  if ([...url.searchParams.keys()].length === 0) return { single: null, multi: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  return { single, multi };
};

const isTextual = (contentType: string | undefined): boolean =>
  !contentType || /^(text\/|application\/([a-z.+-]*\+)?(json|xml|x-www-form-urlencoded))/i.test(contentType);

/** Does an IAM policy of the authorizer allow invoking this method ARN? (Explicit Deny wins.) */
export const policyAllows = (result: APIGatewayAuthorizerResult, methodArn: string): boolean => {
  const matches = (pattern: string) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`).test(methodArn);
  const statements = result.policyDocument?.Statement ?? [];
  const applies = (s: (typeof statements)[number]) => {
    const resources = 'Resource' in s ? ([] as string[]).concat(s.Resource as string | string[]) : [];
    const actions = 'Action' in s ? ([] as string[]).concat(s.Action as string | string[]) : [];
    return (
      actions.some((a) => a === 'execute-api:Invoke' || a === '*' || a === 'execute-api:*') &&
      resources.some(matches)
    );
  };
  if (statements.some((s) => s.Effect === 'Deny' && applies(s))) return false;
  return statements.some((s) => s.Effect === 'Allow' && applies(s));
};

const lambdaContext = (functionName: string, requestId: string, deadline: number): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT_ID}:function:${functionName}`,
  memoryLimitInMB: '512',
  awsRequestId: requestId,
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'local',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve('timeout'), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

export const startGateway = async (
  options: GatewayOptions,
  port = 0,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> => {
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const integrationTimeoutMs = options.integrationTimeoutMs ?? 29_000;

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

    const send = (
      status: number,
      headers: Record<string, string | string[]>,
      body: Buffer,
      error?: string,
    ) => {
      res.writeHead(status, { ...headers, 'x-request-id': requestId, 'content-length': String(body.length) });
      res.end(body);
      const record: AccessLogRecord = {
        requestId,
        time: new Date(started).toISOString(),
        timeEpochMs: started,
        method,
        path: url.pathname,
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
      };
      options.onAccessLog(record);
    };
    const sendGatewayResponse = (type: GatewayResponseType) => {
      const definition = gatewayResponse(type);
      const body = gatewayResponseTemplate(definition).replaceAll('$context.requestId', requestId);
      const headers = Object.fromEntries(
        Object.entries(GATEWAY_RESPONSE_HEADERS).map(([k, v]) => [
          k,
          v.replaceAll('$context.requestId', requestId),
        ]),
      );
      send(definition.statusCode, headers, Buffer.from(body), definition.detail);
    };

    const stagePrefix = `/${STAGE}`;
    if (url.pathname !== stagePrefix && !url.pathname.startsWith(`${stagePrefix}/`)) {
      return sendGatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    }
    const path = url.pathname.slice(stagePrefix.length) || '/';
    const matched = matchRoute(method, path);
    if (!matched) return sendGatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    const { compiled, pathParameters } = matched;
    resourcePath = compiled.resource;

    const raw = await readBody(req, maxBodyBytes);
    if (raw === 'too_large') return sendGatewayResponse('REQUEST_TOO_LARGE');
    const { headers, multiValueHeaders } = headerMaps(req);
    const query = queryMaps(url);
    const textual = isTextual(req.headers['content-type']);
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
      body: raw.length === 0 ? null : textual ? raw.toString('utf8') : raw.toString('base64'),
      isBase64Encoded: raw.length > 0 && !textual,
    };
    const group = compiled.route.group;
    const integrationStarted = Date.now();
    let result: APIGatewayProxyResult | 'timeout';
    try {
      result = await withTimeout(
        options.handlers[group](
          event,
          lambdaContext(group, randomUUID(), integrationStarted + integrationTimeoutMs),
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
    const responseHeaders: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) responseHeaders[k] = String(v);
    for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) responseHeaders[k] = v.map(String);
    const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
    send(result.statusCode, responseHeaders, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/problem+json' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: actual } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${actual}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
