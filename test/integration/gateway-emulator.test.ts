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
});
