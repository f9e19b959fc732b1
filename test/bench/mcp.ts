import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { transcodeJobRecord } from '../fixtures/transcode-jobs';

/**
 * MCP bench (part of `npm run bench`; `npm run bench -- mcp` runs only this and the bundles): DynamoDB
 * requests of the `get_transcode_job` and `get_usage` tool calls against their routes, each handler
 * in-process with the same authorizer context (both include the `api_requests` meter), counted at the SDK
 * client. The tools call the routes' domain functions, so the figures must be equal.
 */
export const benchMcpRequests = async (options: {
  authorizerContext: unknown;
  companyId: string;
  context: Context;
  countDynamoDb: <T>(fn: () => Promise<T>) => Promise<number>;
  write: (line: string) => void;
}) => {
  const { authorizerContext, companyId, context, countDynamoDb, write } = options;
  const { createJob: createTranscodeJob } = (await import('../../functions/shared/domain/transcodes'))
    .transcodeJobs.lifecycle;
  const transcodes = (await import('../../functions/api/transcodes/index')).handler;
  const usage = (await import('../../functions/api/usage/index')).handler;
  const mcp = (await import('../../functions/api/mcp/index')).handler;

  const jobId = `tc_bench${Date.now().toString(36)}`;
  await createTranscodeJob(transcodeJobRecord({ jobId, companyId }, new Date()), 1000);

  const event = (
    method: string,
    resource: string,
    parts: { path?: Record<string, string>; body?: unknown } = {},
  ) =>
    ({
      resource,
      path: `/v1${resource}`,
      httpMethod: method,
      headers: parts.body === undefined ? {} : { 'content-type': 'application/json' },
      queryStringParameters: null,
      pathParameters: parts.path ?? null,
      body: parts.body === undefined ? null : JSON.stringify(parts.body),
      isBase64Encoded: false,
      requestContext: { requestId: 'bench', authorizer: authorizerContext },
    }) as unknown as APIGatewayProxyEvent;
  const toolCall = (name: string, args: Record<string, unknown>) =>
    event('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });
  const ok = (answer: APIGatewayProxyResult) => {
    const body = JSON.parse(answer.body) as { result?: { isError?: boolean } };
    if (answer.statusCode !== 200 || body.result?.isError)
      throw new Error(`bench call failed: ${answer.body}`);
  };
  const pairs: [string, () => Promise<unknown>, string, () => Promise<unknown>][] = [
    [
      'GET /v1/transcodes/{id} handler',
      async () => ok(await transcodes(event('GET', '/transcodes/{id}', { path: { id: jobId } }), context)),
      'tools/call get_transcode_job',
      async () => ok(await mcp(toolCall('get_transcode_job', { id: jobId }), context)),
    ],
    [
      'GET /v1/usage handler',
      async () => ok(await usage(event('GET', '/usage'), context)),
      'tools/call get_usage',
      async () => ok(await mcp(toolCall('get_usage', {}), context)),
    ],
  ];
  for (const [routeName, route, toolName, tool] of pairs) {
    // One call each first: module-level caches (plans, cursor key) are filled alike.
    await route();
    await tool();
    const routeRequests = await countDynamoDb(route);
    const toolRequests = await countDynamoDb(tool);
    write(
      `${routeName.padEnd(34)} ${String(routeRequests).padStart(3)}   ${toolName.padEnd(30)} ${String(toolRequests).padStart(3)}   ${routeRequests === toolRequests ? 'equal' : 'DIFFERENT'}\n`,
    );
  }
};
