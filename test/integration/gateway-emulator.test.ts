import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProxyHandler, startGateway } from '../../functions/local/gateway';
import type { AccessLogRecord } from '../../functions/shared/http/access-log';
import { ROUTE_GROUPS, type RouteGroup } from '../../functions/shared/routes/route-table';

/**
 * The emulator itself, in front of recording handlers: what API Gateway would hand a Lambda function and
 * how it treats the authorizer's answer.
 */
const events: APIGatewayProxyEvent[] = [];
const logs: AccessLogRecord[] = [];
const echo: ProxyHandler = async (event) => {
  events.push(event);
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
};

const allow = (resource: string, context: Record<string, string>): APIGatewayAuthorizerResult => ({
  principalId: 'p',
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }],
  },
  context,
});

let url = '';
let close: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const handlers = Object.fromEntries(ROUTE_GROUPS.map((g) => [g, echo])) as Record<RouteGroup, ProxyHandler>;
  const gateway = await startGateway({
    handlers,
    onAccessLog: (r) => logs.push(r),
    authorizer: async (event) => {
      const key = event.headers?.['x-api-key'];
      if (key === 'allow')
        return allow(event.methodArn, { companyId: 'co_1', authMethod: 'api_key', keyId: 'k1', scopes: '' });
      if (key === 'deny')
        return {
          ...allow(event.methodArn, {}),
          policyDocument: {
            Version: '2012-10-17',
            Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: event.methodArn }],
          },
        };
      if (key === 'other-method') return allow(event.methodArn.replace(/\/GET\//, '/POST/'), {});
      throw new Error('Unauthorized');
    },
  });
  url = gateway.url;
  close = gateway.close;
});
afterAll(() => close());

describe('local API Gateway emulator', () => {
  it('takes the source IP from the socket, never from X-Forwarded-For', async () => {
    const res = await fetch(`${url}/v1/self`, {
      headers: { 'x-api-key': 'allow', 'X-Forwarded-For': '203.0.113.9' },
    });
    expect(res.status).toBe(200);
    const event = events.at(-1);
    expect(event?.requestContext.identity.sourceIp).toBe('127.0.0.1');
    expect(event?.headers['X-Forwarded-For']).toBe('203.0.113.9');
    expect(logs.at(-1)?.sourceIp).toBe('127.0.0.1');
  });

  it('builds a REST v1 proxy event with resource, path parameters, query and authorizer context', async () => {
    await fetch(`${url}/v1/transcodes/job%201/cancel?a=1&a=2`, {
      method: 'POST',
      headers: { 'x-api-key': 'allow' },
    });
    const event = events.at(-1);
    expect(event).toMatchObject({
      resource: '/transcodes/{id}/cancel',
      path: '/transcodes/job%201/cancel',
      httpMethod: 'POST',
      pathParameters: { id: 'job 1' },
      queryStringParameters: { a: '2' },
      multiValueQueryStringParameters: { a: ['1', '2'] },
      requestContext: {
        stage: 'v1',
        resourcePath: '/transcodes/{id}/cancel',
        path: '/v1/transcodes/job%201/cancel',
        authorizer: { companyId: 'co_1', authMethod: 'api_key', keyId: 'k1', principalId: 'p' },
      },
    });
  });

  it('answers an authorizer refusal with the 401 gateway response and never calls the handler', async () => {
    const count = events.length;
    const res = await fetch(`${url}/v1/self`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    const body = (await res.json()) as { code: string; requestId: string };
    expect(body.code).toBe('unauthorized');
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(events.length).toBe(count);
  });

  it.each(['deny', 'other-method'])('enforces the policy: %s answers 403 forbidden', async (key) => {
    const count = events.length;
    const res = await fetch(`${url}/v1/self`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('forbidden');
    expect(events.length).toBe(count);
  });

  it('does not run the authorizer for public routes', async () => {
    const res = await fetch(`${url}/v1/public/plans`);
    expect(res.status).toBe(200);
    expect(events.at(-1)?.requestContext.authorizer).toBeNull();
  });

  it('writes one access-log line per request, without credentials', async () => {
    const before = logs.length;
    await fetch(`${url}/v1/self`, { headers: { 'x-api-key': 'allow', 'user-agent': 'probe/1' } });
    expect(logs.length).toBe(before + 1);
    const line = logs.at(-1);
    expect(line).toMatchObject({
      method: 'GET',
      path: '/v1/self',
      route: '/self',
      status: 200,
      userAgent: 'probe/1',
      companyId: 'co_1',
    });
    expect(JSON.stringify(line)).not.toContain('allow');
  });

  it.each(['%E0', '%ZZ', '%'])(
    'answers a malformed escape in a path parameter (%s) with a logged 400 problem',
    async (id) => {
      const before = logs.length;
      const res = await fetch(`${url}/v1/transcodes/${id}`, { headers: { 'x-api-key': 'allow' } });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const body = (await res.json()) as { code: string; requestId: string; errors: { pointer: string }[] };
      expect(body).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/path' }] });
      expect(body.requestId).toBe(res.headers.get('x-request-id'));
      expect(logs.length).toBe(before + 1);
      expect(logs.at(-1)).toMatchObject({ status: 400, requestId: body.requestId });
    },
  );

  it('answers a 70 KB path with a logged 414 problem', async () => {
    const before = logs.length;
    const res = await fetch(`${url}/v1/transcodes/${'a'.repeat(70_000)}`, {
      headers: { 'x-api-key': 'allow' },
    });
    expect(res.status).toBe(414);
    const body = (await res.json()) as { code: string; requestId: string };
    expect(body.code).toBe('uri_too_long');
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(logs.at(-1)).toMatchObject({ status: 414, requestId: body.requestId });
    expect(logs.length).toBe(before + 1);
  });

  it('answers headers beyond what it parses with a logged 431 problem', async () => {
    const before = logs.length;
    const res = await fetch(`${url}/v1/self`, {
      headers: { 'x-api-key': 'allow', 'x-big': 'b'.repeat(1_100_000) },
    });
    expect(res.status).toBe(431);
    const body = (await res.json()) as { code: string; requestId: string };
    expect(body.code).toBe('request_header_fields_too_large');
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(logs.length).toBe(before + 1);
    expect(logs.at(-1)).toMatchObject({ status: 431, requestId: body.requestId });
  });

  it('answers a method the resource lacks with a logged 405 and Allow, without calling anything', async () => {
    const count = events.length;
    const before = logs.length;
    const res = await fetch(`${url}/v1/transcodes/j1`, {
      method: 'DELETE',
      headers: { 'x-api-key': 'allow' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(((await res.json()) as { code: string }).code).toBe('method_not_allowed');
    expect(events.length).toBe(count);
    expect(logs.length).toBe(before + 1);
  });

  it('hands every body over as its exact bytes, base64-encoded', async () => {
    const bytes = Buffer.from([0x7b, 0xc3, 0x28, 0x7d]);
    await fetch(`${url}/v1/transcodes`, {
      method: 'POST',
      headers: { 'x-api-key': 'allow', 'content-type': 'application/json' },
      body: bytes,
    });
    const event = events.at(-1);
    expect(event?.isBase64Encoded).toBe(true);
    expect(Buffer.from(event?.body ?? '', 'base64')).toEqual(bytes);
  });
});
